package org.tapeq.scheduler.tape.scsi;

import java.util.List;
import java.util.Locale;

import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.TapeFault;

/**
 * Maps a failed {@code mtx}, {@code mt} or {@code dd} command to the scheduler's fault classes, from what the
 * tools print: the errno text of the {@code st} driver ({@code No space left on device}, {@code Input/output
 * error}, ...), the SCSI sense key {@code mtx} prints, the connection errors of a command prefix such as
 * {@code ssh}, and the watchdog's timeout. The first matching rule wins; an unknown error is a {@code DRIVE}
 * fault for tape commands and a {@code ROBOT} fault for the changer.
 */
final class FaultMap {

    /** What the failed command was doing. */
    enum Op {
        /** {@code mtx}: status, load, unload. */
        ROBOT,
        /** {@code mt}: rewind, seek, space, eod, status, offline. */
        POSITION,
        /** {@code dd} from the tape. */
        READ,
        /** {@code dd} to the tape, {@code mt weof}. */
        WRITE
    }

    private record Rule(String text, Op only, FaultKind kind) {
    }

    /**
     * Lower-case fragments of the tools' messages; {@code only} null = any operation; {@code kind} null = the
     * device the command addressed: {@code ROBOT} for the changer ({@code mtx}), {@code DRIVE} otherwise.
     */
    private static final List<Rule> RULES = List.of(
            // the command prefix could not reach the tape host
            new Rule("connection refused", null, null),
            new Rule("connection timed out", null, null),
            new Rule("could not resolve hostname", null, null),
            new Rule("no route to host", null, null),
            new Rule("connection closed by", null, null),
            new Rule("host key verification failed", null, null),
            // errno texts of the st/sg drivers
            new Rule("no space left on device", null, FaultKind.TAPE_FULL),
            new Rule("read-only file system", Op.WRITE, FaultKind.MEDIA),
            new Rule("write-protected", Op.WRITE, FaultKind.MEDIA),
            new Rule("no medium found", null, null),
            new Rule("no such device", null, null),
            new Rule("no such file or directory", null, null),
            new Rule("device or resource busy", null, null),
            new Rule("permission denied", null, null),
            new Rule("cannot allocate memory", Op.READ, FaultKind.MEDIA),
            // sense keys (mtx and sg tools print them)
            new Rule("medium error", null, FaultKind.MEDIA),
            new Rule("hardware error", null, null),
            new Rule("not ready", null, null),
            // mtx's own refusals (illegal request, source element empty, destination element full) need no
            // rule: whatever mtx reports falls back to ROBOT
            // an I/O error while moving data: the cartridge could not be read or written there
            new Rule("input/output error", Op.READ, FaultKind.MEDIA),
            new Rule("input/output error", Op.WRITE, FaultKind.MEDIA));

    private FaultMap() {
    }

    /** The fault for a failed command; {@code what} names the operation for the message. */
    static TapeFault fault(Op op, String what, CommandRunner.Result r) {
        return new TapeFault(kind(op, r), what + ": " + r.line() + ": " + r.diagnostic());
    }

    static FaultKind kind(Op op, CommandRunner.Result r) {
        FaultKind fallback = op == Op.ROBOT ? FaultKind.ROBOT : FaultKind.DRIVE;
        if (r.limitReached()) {
            return fallback;
        }
        String text = (r.stderr() + "\n" + r.stdout()).toLowerCase(Locale.ROOT);
        for (Rule rule : RULES) {
            if ((rule.only == null || rule.only == op) && text.contains(rule.text)) {
                return rule.kind == null ? fallback : rule.kind;
            }
        }
        return fallback;
    }
}
