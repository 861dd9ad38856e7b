package org.tapeq.workload.scenario;

import org.tapeq.workload.SimOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import org.tapeq.config.ConfigNode;
import org.tapeq.scheduler.engine.SchedulerConfig;

/**
 * Reads a scenario's {@code faults}, {@code repack} and {@code stageBuffer} sections ({@link SimOptions}), the keys
 * only {@code tapeq simulate} reads; {@link ScenarioFile} calls it for both tools, so a file is checked the same
 * whoever reads it. Every key is a constant here; an error names the file, the key path and the reason.
 */
final class SimOptionsFile {

    static final String FAULTS = "faults";
    static final String REPACK = "repack";
    static final String STAGE_BUFFER = "stageBuffer";

    static final String DRIVE_FAILURES = "driveFailures";
    static final String SLOW_DRIVES = "slowDrives";
    static final String ROBOT_OUTAGES = "robotOutages";
    static final List<String> FAULT_KEYS = List.of(DRIVE_FAILURES, SLOW_DRIVES, ROBOT_OUTAGES);

    static final String DRIVES = "drives";
    static final String FIRST = "first";
    static final String AT = "at";
    static final String REPAIR = "repair";
    static final List<String> DRIVE_FAILURE_KEYS = List.of(DRIVES, FIRST, AT, REPAIR);
    static final String FACTOR = "factor";
    static final List<String> SLOW_KEYS = List.of(DRIVES, FACTOR);
    static final String FOR = "for";
    static final List<String> ROBOT_KEYS = List.of(AT, FOR);

    static final String CARTRIDGES = "cartridges";
    static final String FILES = "files";
    static final String TARGETS = "targets";
    static final String BARCODES = "barcodes";
    static final String START = "start";
    static final String MAX_DRIVES = "maxDrives";
    static final String SHARE = "share";
    static final List<String> REPACK_KEYS = List.of(CARTRIDGES, FILES, TARGETS, BARCODES, START, MAX_DRIVES, SHARE);

    static final String SIZE = "size";
    static final String DRAIN_RATE = "drainRate";
    static final List<String> BUFFER_KEYS = List.of(SIZE, DRAIN_RATE);

    /** Drives are repaired this long after they failed unless {@code repair} says (as {@code --drive-failures}). */
    static final long DEFAULT_REPAIR_MILLIS = 2 * 3_600_000L;
    static final String DEFAULT_REPACK_BARCODES = "RP";
    /** Three characters, so that the targets' prefix (the same plus T) is still a barcode prefix of four. */
    private static final Pattern REPACK_PREFIX = Pattern.compile("[A-Z0-9]{1,3}");

    private SimOptionsFile() {
    }

    /** The sections of {@code root}, checked against a library of {@code drives} drives. */
    static SimOptions read(ConfigNode root, int drives) {
        if (!root.has(FAULTS) && !root.has(REPACK) && !root.has(STAGE_BUFFER)) {
            return SimOptions.NONE;
        }
        SimOptions.Faults faults = root.has(FAULTS) ? faults(root.map(FAULTS), drives) : SimOptions.Faults.NONE;
        SimOptions.Repack repack = root.has(REPACK) ? repack(root.map(REPACK), drives) : null;
        SimOptions.StageBuffer buffer = root.has(STAGE_BUFFER) ? stageBuffer(root.map(STAGE_BUFFER)) : null;
        return new SimOptions(faults, repack, buffer);
    }

    private static SimOptions.Faults faults(ConfigNode n, int libraryDrives) {
        n.allow(FAULT_KEYS);
        List<SimOptions.DriveFailure> failures = new ArrayList<>();
        for (ConfigNode f : n.list(DRIVE_FAILURES)) {
            f.allow(DRIVE_FAILURE_KEYS);
            if (!f.has(DRIVES) || !f.has(AT)) {
                throw f.error(f.has(DRIVES) ? AT : DRIVES, "required (drives: how many fail, at: when)");
            }
            int count = (int) f.integer(DRIVES, 1, 1, libraryDrives);
            int first = (int) f.integer(FIRST, 0, 0, libraryDrives - 1);
            if (first + count > libraryDrives) {
                throw f.error(DRIVES, "drives " + first + " to " + (first + count - 1) + " fail, but the library has "
                        + libraryDrives + " (drive0 to drive" + (libraryDrives - 1) + ")");
            }
            long repair = f.duration(REPAIR, DEFAULT_REPAIR_MILLIS);
            if (repair <= 0) {
                throw f.error(REPAIR, "must be longer than 0");
            }
            failures.add(new SimOptions.DriveFailure(first, count, f.duration(AT, 0), repair));
        }
        SimOptions.SlowDrives slow = null;
        if (n.has(SLOW_DRIVES)) {
            ConfigNode s = n.map(SLOW_DRIVES);
            s.allow(SLOW_KEYS);
            if (!s.has(DRIVES) || !s.has(FACTOR)) {
                throw s.error(s.has(DRIVES) ? FACTOR : DRIVES, "required (drives: how many, factor: of the rate)");
            }
            double factor = s.number(FACTOR, 1, 0);
            if (factor > 1) {
                throw s.error(FACTOR, "a slow drive streams at most at the media's rate: a factor in (0, 1], not "
                        + factor);
            }
            slow = new SimOptions.SlowDrives((int) s.integer(DRIVES, 1, 1, libraryDrives), factor);
        }
        List<SimOptions.RobotOutage> outages = new ArrayList<>();
        for (ConfigNode r : n.list(ROBOT_OUTAGES)) {
            r.allow(ROBOT_KEYS);
            if (!r.has(AT) || !r.has(FOR)) {
                throw r.error(r.has(AT) ? FOR : AT, "required (at: when the robot stops, for: how long)");
            }
            long length = r.duration(FOR, 0);
            if (length <= 0) {
                throw r.error(FOR, "must be longer than 0");
            }
            outages.add(new SimOptions.RobotOutage(r.duration(AT, 0), length));
        }
        return new SimOptions.Faults(failures, slow, outages);
    }

    private static SimOptions.Repack repack(ConfigNode n, int libraryDrives) {
        n.allow(REPACK_KEYS);
        for (String k : List.of(CARTRIDGES, FILES, TARGETS)) {
            if (!n.has(k)) {
                throw n.error(k, "required (cartridges: sources, files: live files on them, targets: blank "
                        + "cartridges they move to)");
            }
        }
        int cartridges = (int) n.integer(CARTRIDGES, 1, 1, 9_999);
        int files = (int) n.integer(FILES, 1, 1, 100_000_000);
        int targets = (int) n.integer(TARGETS, 1, 1, 9_999);
        String barcodes = n.string(BARCODES, DEFAULT_REPACK_BARCODES);
        if (!REPACK_PREFIX.matcher(barcodes).matches()) {
            throw n.error(BARCODES, "\"" + barcodes + "\" must be 1 to 3 upper-case letters or digits (the targets "
                    + "get the same followed by T)");
        }
        int maxDrives = (int) n.integer(MAX_DRIVES, 1, 1, libraryDrives);
        double share = n.number(SHARE, 0, -1);
        try {
            SchedulerConfig.builder().backgroundShare(share).build(); // the scheduler's own check, in one place
        } catch (IllegalArgumentException e) {
            throw n.error(SHARE, e.getMessage() + " (scheduler.backgroundShare)");
        }
        return new SimOptions.Repack(cartridges, files, targets, barcodes, n.duration(START, 0), maxDrives, share);
    }

    private static SimOptions.StageBuffer stageBuffer(ConfigNode n) {
        n.allow(BUFFER_KEYS);
        if (!n.has(SIZE) || !n.has(DRAIN_RATE)) {
            throw n.error(n.has(SIZE) ? DRAIN_RATE : SIZE, "required (size: the buffer's bytes, drainRate: how fast "
                    + "the pool empties it, e.g. 2GB/s)");
        }
        long size = n.size(SIZE, 0);
        if (size <= 0) {
            throw n.error(SIZE, "must be more than 0 bytes");
        }
        return new SimOptions.StageBuffer(size, ScenarioFile.rate(n, DRAIN_RATE));
    }
}
