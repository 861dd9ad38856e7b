package org.tapeq.scheduler.tape.scsi;

import java.util.ArrayList;
import java.util.List;

import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.TapeFault;

/**
 * The {@code mt} command lines the backend sends to a drive (positioning, status, block mode), shared by
 * {@link ScsiLibrary}, {@link MountSequence} and {@link LibraryInventory}, and the checks of their results.
 */
final class DriveCommands {

    /** How long to wait between polls for a loaded drive to become ready, and between retries of a busy device. */
    static final long POLL_MILLIS = 500;

    private final CommandRunner runner;
    private final long timeoutMillis;

    DriveCommands(CommandRunner runner, long timeoutMillis) {
        this.runner = runner;
        this.timeoutMillis = timeoutMillis;
    }

    /** One {@code mt} command on the drive. */
    CommandRunner.Result run(DriveState d, Object... words) {
        return run(d, List.of(words));
    }

    /** Several {@code mt} commands on the drive in one command line, each run only if the one before succeeded. */
    CommandRunner.Result run(DriveState d, List<?>... commands) {
        List<String> lines = new ArrayList<>();
        for (List<?> words : commands) {
            List<Object> line = new ArrayList<>(List.of("mt", "-f", d.device()));
            line.addAll(words);
            lines.add(Shell.line(line.toArray()));
        }
        return runner.run(String.join(" && ", lines), timeoutMillis);
    }

    /** Variable-block mode, once per load (a cartridge found in a drive at start included). */
    void prepare(DriveState d, String what) throws TapeFault {
        if (!d.prepared) {
            check(run(d, "setblk", 0), FaultMap.Op.POSITION, what + " (setting variable block mode)");
            d.prepared = true;
        }
    }

    static void check(CommandRunner.Result r, FaultMap.Op op, String what) throws TapeFault {
        if (!r.ok()) {
            throw FaultMap.fault(op, what, r);
        }
    }

    static long parseTell(CommandRunner.Result r, String what) throws TapeFault {
        try {
            return DriveStatus.parseTell(r.stdout());
        } catch (IllegalArgumentException e) {
            throw new TapeFault(FaultKind.DRIVE, what + ": " + e.getMessage());
        }
    }

    static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
