package org.tapeq.scheduler.tape.scsi;

import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.CartridgeCapacity;

/**
 * What the backend asks a drive besides moving tape: its identity ({@code sg_inq}), its TapeAlert flags
 * ({@code sg_logs}), the capacity in the loaded cartridge's memory ({@code sg_read_attr}), its end-of-wrap positions
 * and recommended access order ({@code sg_raw}), and whether the loaded cartridge is blank. The sg3_utils
 * commands go to the drive's {@code st} device (the st driver passes SCSI commands through), so no sg device
 * needs configuring; a drive or tape host without them (no sg3_utils, a drive without LOG SENSE page 0x2e or
 * cartridge memory) answers "nothing known", logged once per drive and command. The drive-order commands answer a
 * {@link DriveAnswer} that tells a drive lacking the command from a failure; {@link DriveOrder} acts on it.
 *
 * <p>Design notes. Called from the library's jobs on the runner's threads; the only state is the set of
 * (drive, command) pairs already logged as unsupported, a concurrent set.
 */
final class DriveProbe {

    private static final Logger LOG = LoggerFactory.getLogger(DriveProbe.class);

    /**
     * The limit of one probe that does not move the tape (READ END OF WRAP POSITION, the RAO limits, the cartridge
     * memory): a drive answers them at once, so one that has not after a minute is not waited for as long as for
     * positioning; the load goes on without the facts and asks again at the next load.
     */
    static final long PROBE_TIMEOUT_MILLIS = 60_000;

    private final CommandRunner runner;
    private final long timeoutMillis;
    private final long probeTimeoutMillis;
    private final Set<String> unsupported = ConcurrentHashMap.newKeySet();

    /** Probes limited to {@link #PROBE_TIMEOUT_MILLIS} (or the tape timeout, if shorter), other commands to it. */
    DriveProbe(CommandRunner runner, long timeoutMillis) {
        this(runner, timeoutMillis, Math.min(timeoutMillis, PROBE_TIMEOUT_MILLIS));
    }

    DriveProbe(CommandRunner runner, long timeoutMillis, long probeTimeoutMillis) {
        if (timeoutMillis <= 0 || probeTimeoutMillis <= 0) {
            throw new IllegalArgumentException("timeouts must be positive: " + timeoutMillis + ", "
                    + probeTimeoutMillis + " ms");
        }
        this.runner = runner;
        this.timeoutMillis = timeoutMillis;
        this.probeTimeoutMillis = probeTimeoutMillis;
    }

    /** The drive's TapeAlert flags, which reading clears; none if the drive or the tape host cannot tell. */
    TapeAlert tapeAlert(String device) {
        CommandRunner.Result r = runner.run(Shell.line("sg_logs", "-p", "0x2e", "-HH", device), timeoutMillis);
        if (!r.ok()) {
            once(device, "TapeAlert", r.line() + ": " + r.diagnostic());
            return TapeAlert.NONE;
        }
        try {
            return TapeAlert.parse(r.stdout());
        } catch (IllegalArgumentException e) {
            once(device, "TapeAlert", e.getMessage());
            return TapeAlert.NONE;
        }
    }

    /**
     * The drive's identity from its standard INQUIRY ({@code sg_inq}); works with or without a cartridge loaded.
     *
     * @throws IllegalArgumentException naming the reason, if the command fails or its output does not parse
     */
    DriveIdentity identity(String device) {
        CommandRunner.Result r = runner.run(DriveIdentity.command(device), probeTimeoutMillis); // moves no tape
        if (!r.ok()) {
            throw new IllegalArgumentException(r.line() + ": " + r.diagnostic());
        }
        return DriveIdentity.parse(r.stdout());
    }

    /** The loaded cartridge's remaining and maximum capacity from its memory, if the drive reads it. */
    Optional<CartridgeCapacity> capacity(String device) {
        CommandRunner.Result r = runner.run(CartridgeMemory.command(device), probeTimeoutMillis);
        if (!r.ok()) {
            once(device, "cartridge memory", r.line() + ": " + r.diagnostic());
            return Optional.empty();
        }
        try {
            return Optional.of(CartridgeMemory.parse(r.stdout()));
        } catch (IllegalArgumentException e) {
            once(device, "cartridge memory", e.getMessage());
            return Optional.empty();
        }
    }

    /**
     * The loaded cartridge's end-of-wrap positions ({@link WrapEnds}: READ END OF WRAP POSITION), the first block past
     * each wrap of partition 0 that the drive reports; {@link DriveAnswer#unsupported} if the drive lacks the
     * command ({@link FaultMap#lacksCommand}: older drives, other vendors, the virtual labs), a refusal of this load
     * only for any other ILLEGAL REQUEST.
     */
    DriveAnswer<long[]> wrapEnds(String device) {
        CommandRunner.Result r = runner.run(WrapEnds.command(device), probeTimeoutMillis);
        if (!r.ok() || FaultMap.illegalRequest(r)) {
            return failure("READ END OF WRAP POSITION", device, r);
        }
        try {
            return DriveAnswer.of(WrapEnds.parse(r.stderr() + "\n" + r.stdout()));
        } catch (IllegalArgumentException e) {
            return DriveAnswer.failed(TapeFault.refusal("drive " + device + ": " + e.getMessage()));
        }
    }

    /**
     * How many segments the drive orders in one recommended access order ({@link AccessOrder}: RECEIVE RECOMMENDED
     * ACCESS ORDER with UDS_LIMITS); {@link DriveAnswer#unsupported} if the drive lacks the command
     * ({@link FaultMap#lacksCommand}: drives without RAO, the virtual labs), a refusal of this load only for any other
     * ILLEGAL REQUEST.
     */
    DriveAnswer<Integer> accessOrderLimit(String device) {
        CommandRunner.Result r = runner.run(AccessOrder.limitsCommand(device), probeTimeoutMillis);
        if (!r.ok() || FaultMap.illegalRequest(r)) {
            return failure("RECEIVE RECOMMENDED ACCESS ORDER (UDS limits)", device, r);
        }
        try {
            return DriveAnswer.of(AccessOrder.parseLimit(r.stderr() + "\n" + r.stdout()));
        } catch (IllegalArgumentException e) {
            return DriveAnswer.failed(TapeFault.refusal("drive " + device + ": " + e.getMessage()));
        }
    }

    /**
     * The drive's recommended order of the block ranges {@code [starts[i], ends[i])} of the loaded tape (GENERATE, then
     * RECEIVE RECOMMENDED ACCESS ORDER): a permutation of their indices. A drive that lacks the command ({@link
     * FaultMap#lacksCommand}) answers {@link DriveAnswer#unsupported}; one that rejects this request (another ILLEGAL
     * REQUEST, such as an invalid field) or answers with a list other than the one sent, a refusal of this request; any
     * other failure is the fault {@link FaultMap} gives it (a hardware error: {@code DRIVE}).
     */
    DriveAnswer<int[]> accessOrder(String device, long[] starts, long[] ends) {
        byte[] parameters = AccessOrder.parameters(starts, ends);
        CommandRunner.Result g = runner.feed(AccessOrder.generateCommand(device, starts.length), 0, timeoutMillis,
                stdin -> stdin.write(parameters));
        if (!g.ok() || FaultMap.illegalRequest(g)) {
            return failure("GENERATE RECOMMENDED ACCESS ORDER", device, g);
        }
        CommandRunner.Result r = runner.run(AccessOrder.receiveCommand(device, starts.length), timeoutMillis);
        if (!r.ok() || FaultMap.illegalRequest(r)) {
            return failure("RECEIVE RECOMMENDED ACCESS ORDER", device, r);
        }
        try {
            return DriveAnswer.of(AccessOrder.parseOrder(r.stderr() + "\n" + r.stdout(), starts, ends));
        } catch (IllegalArgumentException e) {
            return DriveAnswer.failed(TapeFault.refusal("drive " + device + ": " + e.getMessage()));
        }
    }

    /**
     * A failed optional command, told apart by its sense: the drive lacks the command ({@link FaultMap#lacksCommand}:
     * invalid operation code, or an invalid service action), it refused this request only (any other ILLEGAL REQUEST,
     * such as an invalid field elsewhere or a refusal the loaded cartridge causes), or a fault as for the other drive
     * commands (a timeout among them: a drive that did not answer in time has not said it lacks the command).
     */
    private static <T> DriveAnswer<T> failure(String command, String device, CommandRunner.Result r) {
        String why = "drive " + device + " rejects " + command + " (ILLEGAL REQUEST): " + r.diagnostic();
        if (FaultMap.lacksCommand(r)) {
            return DriveAnswer.notOffered(why);
        }
        if (FaultMap.illegalRequest(r)) {
            return DriveAnswer.failed(TapeFault.refusal(why));
        }
        return DriveAnswer.failed(FaultMap.fault(FaultMap.Op.POSITION, "drive " + device + ": " + command, r));
    }

    /**
     * After a read that failed without data and without end of data: whether the tape is blank, which a drive
     * answers with BLANK CHECK (the st driver's {@code EIO}, and {@code mt status} shows no EOD). Only a tape at
     * block 0 can be (a failed read at block 0 also leaves it there, so that alone proves nothing). The cartridge
     * memory, where the drive has it, can only prove the opposite without moving the tape: remaining capacity
     * below the maximum means written, not blank. Everything else (remaining equal to the maximum, which whole
     * MiB and a stale memory also give on a written cartridge; a maximum of 0; no memory) is decided by spacing to
     * end of data: blank only when that leaves the tape at block 0. A wrong "blank" lets a label overwrite data.
     */
    boolean blankAtBot(String device) {
        CommandRunner.Result at = runner.run(Shell.line("mt", "-f", device, "tell"), timeoutMillis);
        if (!at.ok() || tell(at) != 0) {
            return false;
        }
        Optional<CartridgeCapacity> memory = capacity(device);
        if (memory.isPresent() && memory.get().remainingBytes() < memory.get().maximumBytes()) {
            return false;
        }
        CommandRunner.Result eod = runner.run(Shell.line("mt", "-f", device, "eod") + " && "
                + Shell.line("mt", "-f", device, "tell"), timeoutMillis);
        return eod.ok() && tell(eod) == 0;
    }

    private static long tell(CommandRunner.Result r) {
        try {
            return DriveStatus.parseTell(r.stdout());
        } catch (IllegalArgumentException e) {
            return -1;
        }
    }

    /** Logs that the drive at {@code device} gave no {@code what}, once per drive and {@code what}. */
    void once(String device, String what, String why) {
        if (unsupported.add(device + " " + what)) {
            LOG.info("Drive {}: no {} ({}); logged once", device, what, why);
        }
    }
}
