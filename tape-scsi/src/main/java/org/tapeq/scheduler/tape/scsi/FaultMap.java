package org.tapeq.scheduler.tape.scsi;

import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.TapeFault;

/**
 * Maps a failed {@code mtx}, {@code mt} or {@code dd} command to the scheduler's fault classes, from what the
 * tools print: the errno text of the {@code st} driver ({@code No space left on device}, {@code Input/output
 * error}, ...), the SCSI sense key {@code mtx} prints, the connection errors of a command prefix such as
 * {@code ssh}, and the watchdog's timeout. The first matching rule wins; an unknown error is a {@code DRIVE}
 * fault for tape commands and a {@code ROBOT} fault for the changer. It also tells, for the optional drive commands
 * ({@link DriveProbe}), a drive that lacks a command from one that refuses one request ({@link #illegalRequest},
 * {@link #lacksCommand}), from the sense {@code sg_raw} prints (sg3_utils' {@code sg_get_sense_str}).
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

    /**
     * The field pointer of an ILLEGAL REQUEST's sense-key specific bytes, as sg3_utils prints it when it points into
     * the command: {@code Sense Key Specific: Error in Command: byte N} (followed by {@code bit B} or a line end).
     */
    private static final Pattern COMMAND_FIELD = Pattern.compile("error in command: byte (\\d+)\\b");

    private FaultMap() {
    }

    /** Whether the command failed with sense key ILLEGAL REQUEST (the additional sense may be any). */
    static boolean illegalRequest(CommandRunner.Result r) {
        return text(r).contains("illegal request");
    }

    /**
     * Whether the drive lacks the command for good, so asking it again is pointless: ILLEGAL REQUEST with additional
     * sense INVALID COMMAND OPERATION CODE (20h/00h), or INVALID FIELD IN CDB (24h/00h) with the field pointer at
     * command byte 1, the service action (a MAINTENANCE IN/OUT service action the drive does not implement). Any
     * other ILLEGAL REQUEST (another field, a parameter, a refusal the loaded cartridge causes) concerns that request
     * only.
     */
    static boolean lacksCommand(CommandRunner.Result r) {
        String text = text(r);
        if (!text.contains("illegal request")) {
            return false;
        }
        if (text.contains("invalid command operation code")) {
            return true;
        }
        if (!text.contains("invalid field in cdb")) {
            return false;
        }
        Matcher field = COMMAND_FIELD.matcher(text);
        return field.find() && field.group(1).equals("1");
    }

    private static String text(CommandRunner.Result r) {
        return (r.stderr() + "\n" + r.stdout()).toLowerCase(Locale.ROOT);
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
        String text = text(r);
        for (Rule rule : RULES) {
            if ((rule.only == null || rule.only == op) && text.contains(rule.text)) {
                return rule.kind == null ? fallback : rule.kind;
            }
        }
        return fallback;
    }
}
