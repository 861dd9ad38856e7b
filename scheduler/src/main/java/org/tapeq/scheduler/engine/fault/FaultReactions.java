package org.tapeq.scheduler.engine.fault;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.tapeq.protocol.ReturnCodes;
import org.tapeq.scheduler.model.FaultKind;

/**
 * The fault table: what the engine does when an operation fails with a fault of a kind, and which return
 * code dCache gets when a request finally fails. Every place in the engine that reacts to a fault asks
 * {@link #of}; docs/scheduler.md ("Faults") prints {@link #table()} (a test keeps the two equal).
 *
 * <p>Design notes. A reaction has up to five parts, applied by the code that saw the fault: the drive's
 * consecutive error count rises (the drive goes out of service at the limit), the robot's count rises
 * (mounts pause at the limit), the cartridge changes state, the requests of the operation are retried,
 * re-checked or failed, and the drive goes on, gives the cartridge back or is taken out of service. The
 * retry limit and backoff are settings; whether a fault is worth a retry at all is decided here.
 */
public final class FaultReactions {

    /** What was being done when the fault happened. */
    public enum Operation {
        /** Loading a cartridge for scheduled work. */
        MOUNT,
        /** Unloading a cartridge. */
        UNMOUNT,
        /** Positioning at and reading the label after a mount. */
        LABEL_CHECK,
        /** Positioning and reading a unit of stage requests. */
        READ,
        /** Checking one member after its read: its target, its length, its checksum. */
        DELIVER,
        /** Appending an aggregate, checking its size, reading it back. */
        WRITE,
        /** Recording a written aggregate in the catalog. */
        COMMIT,
        /** Checking a flush's source file before its aggregate is written. */
        PREPARE
    }

    /** What happens to the requests of the failed operation. */
    public enum Requests {
        /** Nothing: they wait in their queue. */
        NONE,
        /** Retried after a backoff (doubling per attempt), failed after the last attempt. */
        RETRY,
        /** Queued again at once, not counted as an attempt. */
        RETRY_UNCOUNTED,
        /** Checked again (counted as an attempt); the bad ones fail alone. */
        RECHECK,
        /** Failed at once. */
        FAIL
    }

    /** What happens to the cartridge. */
    public enum Cartridge { KEEP, SUSPECT, FULL, BLANK_OR_FOREIGN }

    /** What the drive does next. */
    public enum Then {
        /** Goes on with its cartridge. */
        GO_ON,
        /** Gives the cartridge back. */
        UNLOAD,
        /** Gives the cartridge back; its queue prefers another drive. */
        UNLOAD_AVOID,
        /** (Mount failed) the queue is filed again now, preferring another drive. */
        REFILE,
        /** (Mount failed) the queue is filed again after the backoff, preferring another drive. */
        REFILE_AFTER_BACKOFF,
        /** (Unload failed) the unload is tried again after the backoff. */
        RETRY_UNLOAD,
        /** (Unload failed) the drive is taken out of service with the cartridge in it. */
        TAKE_DOWN,
        /** No drive is involved (a flush's source is checked before any drive takes it). */
        NO_DRIVE
    }

    /**
     * One cell of the table.
     *
     * @param driveOut the drive is taken out of service at once, the fault its reason ({@link #takesDriveOut})
     */
    public record Reaction(boolean driveError, boolean robotError, Cartridge cartridge, Requests requests,
                           Then then, boolean driveOut) {
        Reaction(boolean driveError, boolean robotError, Cartridge cartridge, Requests requests, Then then) {
            this(driveError, robotError, cartridge, requests, then, false);
        }
    }

    private static final Map<Operation, Map<FaultKind, Reaction>> TABLE = new EnumMap<>(Operation.class);

    static {
        for (Operation op : Operation.values()) {
            Map<FaultKind, Reaction> row = new EnumMap<>(FaultKind.class);
            for (FaultKind kind : FaultKind.values()) {
                row.put(kind, decide(op, kind));
            }
            TABLE.put(op, row);
        }
    }

    private FaultReactions() {
    }

    /** The reaction to {@code kind} failing {@code op}. */
    public static Reaction of(Operation op, FaultKind kind) {
        return TABLE.get(op).get(kind);
    }

    /**
     * Whether a fault of this kind takes the drive out of service at once, whatever the operation: a drive that
     * asks for cleaning (TapeAlert) is not used until an operator has cleaned it and puts it back.
     */
    public static boolean takesDriveOut(FaultKind kind) {
        return kind == FaultKind.CLEANING;
    }

    private static Reaction decide(Operation op, FaultKind k) {
        Reaction r = decideCounted(op, k == FaultKind.CLEANING ? FaultKind.DRIVE : k);
        return takesDriveOut(k) && r.driveError()
                ? new Reaction(true, false, r.cartridge(), r.requests(), r.then(), true)
                : r;
    }

    private static Reaction decideCounted(Operation op, FaultKind k) {
        boolean drive = k == FaultKind.DRIVE;
        return switch (op) {
            case MOUNT -> switch (k) {
                case ROBOT -> new Reaction(false, true, Cartridge.KEEP, Requests.NONE, Then.REFILE_AFTER_BACKOFF);
                case DRIVE -> new Reaction(true, false, Cartridge.KEEP, Requests.NONE, Then.REFILE_AFTER_BACKOFF);
                default -> new Reaction(false, false, Cartridge.KEEP, retryUnlessFinal(k), Then.REFILE);
            };
            case UNMOUNT -> k == FaultKind.ROBOT
                    ? new Reaction(false, true, Cartridge.KEEP, Requests.NONE, Then.RETRY_UNLOAD)
                    : new Reaction(false, false, Cartridge.KEEP, Requests.NONE, Then.TAKE_DOWN);
            case LABEL_CHECK -> new Reaction(drive, false,
                    k == FaultKind.LABEL ? Cartridge.BLANK_OR_FOREIGN : Cartridge.KEEP, retryUnlessFinal(k),
                    Then.UNLOAD);
            case READ -> new Reaction(drive, false, k == FaultKind.MEDIA ? Cartridge.SUSPECT : Cartridge.KEEP,
                    retryUnlessFinal(k), drive ? Then.UNLOAD_AVOID : Then.GO_ON);
            case DELIVER -> new Reaction(false, false, Cartridge.KEEP,
                    k == FaultKind.TARGET ? Requests.FAIL : retryUnlessFinal(k), Then.GO_ON);
            case WRITE -> new Reaction(drive, false,
                    k == FaultKind.TAPE_FULL ? Cartridge.FULL : k == FaultKind.MEDIA ? Cartridge.SUSPECT : Cartridge.KEEP,
                    k == FaultKind.TAPE_FULL ? Requests.RETRY_UNCOUNTED
                            : k == FaultKind.SOURCE ? Requests.RECHECK : retryUnlessFinal(k),
                    drive ? Then.UNLOAD_AVOID : Then.GO_ON);
            case COMMIT -> new Reaction(false, false, Cartridge.KEEP, Requests.FAIL, Then.GO_ON);
            case PREPARE -> new Reaction(false, false, Cartridge.KEEP, Requests.FAIL, Then.NO_DRIVE);
        };
    }

    /** A file that is not there, or a source that is wrong, does not get better by retrying. */
    private static Requests retryUnlessFinal(FaultKind k) {
        return k == FaultKind.NOT_FOUND || k == FaultKind.SOURCE ? Requests.FAIL : Requests.RETRY;
    }

    /**
     * Return code for a request that failed for good with this fault. Codes 41-43 are never used: dCache
     * would disable the whole pool for one file.
     */
    public static int returnCode(FaultKind kind) {
        return switch (kind) {
            // The copy is unreadable or not where the catalog says: dCache should try another copy.
            case MEDIA, NOT_FOUND, LABEL -> ReturnCodes.NOT_ON_TAPE;
            // The bytes are not the recorded ones: retrying the same copy cannot help.
            case CHECKSUM -> ReturnCodes.DATA_MISMATCH;
            // A flush whose file changed or has the wrong size: dCache must not retry blindly.
            case SOURCE -> ReturnCodes.DATA_MISMATCH;
            // Transient: drives, robot, tape full, the target disk. dCache retries later.
            case DRIVE, CLEANING, ROBOT, TAPE_FULL, TARGET, CATALOG -> ReturnCodes.FAILED;
        };
    }

    /**
     * The table as Markdown, as docs/scheduler.md prints it: per operation, the fault kinds with the same
     * reaction on one row (the reaction most kinds share last, as "other"); then the return code per kind.
     */
    public static String table() {
        StringBuilder sb = new StringBuilder();
        sb.append("| Operation | Faults | Reaction |\n|---|---|---|\n");
        int all = FaultKind.values().length;
        for (Operation op : Operation.values()) {
            Map<Reaction, List<String>> kinds = new LinkedHashMap<>();
            for (FaultKind kind : FaultKind.values()) {
                kinds.computeIfAbsent(of(op, kind), r -> new ArrayList<>()).add("`" + kind + "`");
            }
            String name = op.name().toLowerCase(Locale.ROOT).replace('_', ' ');
            Map.Entry<Reaction, List<String>> other = null;
            for (Map.Entry<Reaction, List<String>> e : kinds.entrySet()) {
                if (e.getValue().size() > all / 2) {
                    other = e;
                } else {
                    row(sb, name, String.join(", ", e.getValue()), e.getKey());
                }
            }
            if (other != null) {
                row(sb, name, kinds.size() == 1 ? "any" : "other", other.getKey());
            }
        }
        sb.append("\n| Fault | rc when a request finally fails |\n|---|---|\n");
        for (FaultKind kind : FaultKind.values()) {
            sb.append("| `").append(kind).append("` | ").append(returnCode(kind)).append(" |\n");
        }
        return sb.toString();
    }

    private static void row(StringBuilder sb, String operation, String faults, Reaction r) {
        sb.append("| ").append(operation).append(" | ").append(faults).append(" | ").append(describe(r))
                .append(" |\n");
    }

    private static String describe(Reaction r) {
        List<String> parts = new ArrayList<>();
        if (r.driveOut()) {
            parts.add("drive out of service at once, the fault its reason");
        } else if (r.driveError()) {
            parts.add("drive error counted (out of service at the limit)");
        }
        if (r.robotError()) {
            parts.add("robot error counted (mounts pause at the limit)");
        }
        switch (r.cartridge()) {
            case SUSPECT -> parts.add("cartridge `SUSPECT` (read-only)");
            case FULL -> parts.add("cartridge `FULL`");
            case BLANK_OR_FOREIGN -> parts.add("cartridge `BLANK` or `FOREIGN` (never written)");
            default -> {
            }
        }
        switch (r.requests()) {
            case RETRY -> parts.add("requests retried after a backoff, failed after the last attempt");
            case RETRY_UNCOUNTED -> parts.add("aggregate queued again at once, not counted as an attempt");
            case RECHECK -> parts.add("members checked again, the bad ones fail alone");
            case FAIL -> parts.add("requests fail at once");
            default -> parts.add("requests wait");
        }
        parts.add(switch (r.then()) {
            case GO_ON -> "the drive goes on";
            case UNLOAD -> "cartridge unloaded";
            case UNLOAD_AVOID -> "cartridge unloaded, another drive preferred";
            case REFILE -> "queue filed again, another drive preferred";
            case REFILE_AFTER_BACKOFF -> "queue mountable after the backoff, another drive preferred";
            case RETRY_UNLOAD -> "unload retried after the backoff";
            case TAKE_DOWN -> "drive out of service";
            case NO_DRIVE -> "no drive involved";
        });
        return String.join("; ", parts);
    }
}
