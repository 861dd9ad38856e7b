package org.tapeq.scheduler.engine;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.tapeq.scheduler.engine.lifecycle.ReclaimConfig;
import org.tapeq.scheduler.policy.MountCriteria;

/**
 * Everything the engine can be tuned with. Built once, validated in {@link Builder#build()}, then immutable.
 * Defaults are named constants, derived from ../shared/reference/tape-and-anchors.md where it has a figure
 * (docs/scheduler.md has the table).
 */
public final class SchedulerConfig {

    /** About 90 % streaming efficiency per mount at 400 MB/s with 2-4 minutes of mount overhead. */
    public static final long DEFAULT_MIN_MOUNT_BYTES = 650_000_000_000L;
    /** CTA's file-count threshold. */
    public static final int DEFAULT_MIN_MOUNT_FILES = 10_000;
    /** No new request for a cartridge for this long: the burst has arrived, waiting longer gains little. */
    public static final long DEFAULT_QUIET_MILLIS = 120_000;
    /** The longest a request waits for a mount when its cartridge's queue stays small. */
    public static final long DEFAULT_MAX_WAIT_MILLIS = 3_600_000;
    /** A cartridge is not mounted again within this time unless it has a full mount's worth of work. */
    public static final long DEFAULT_REMOUNT_GUARD_MILLIS = 1_800_000;
    /** A drive keeps an emptied cartridge this long after its last new request, in case more arrive. */
    public static final long DEFAULT_DWELL_MILLIS = 60_000;
    /** An idle mounted cartridge is unloaded after this time even if no other work needs the drive. */
    public static final long DEFAULT_IDLE_UNMOUNT_MILLIS = 900_000;
    /** Requested members of one tape file this close together are read in one streaming pass. */
    public static final long DEFAULT_MERGE_GAP_BYTES = 1_000_000_000L;
    /** Aggregates close at this size (Enstore packs 4-8.6 GB; larger costs nothing on LTO-9). */
    public static final long DEFAULT_AGGREGATE_BYTES = 10_000_000_000L;
    /** A repack batch: 100 GB, about four minutes of reading at LTO-9's 400 MB/s. */
    public static final long DEFAULT_REPACK_SPOOL_BYTES = 100_000_000_000L;
    /** Default {@code backgroundHoldoffMillis}: 5 minutes, a few mount and unload cycles of a tape drive. */
    public static final long DEFAULT_BACKGROUND_HOLDOFF_MILLIS = 300_000;
    /** The periodic verification starts at most one cartridge a minute. */
    public static final int MAX_VERIFY_PER_WEEK = 7 * 24 * 60;
    /** Aggregates close at this many files (Enstore's and CTA's 10 000). */
    public static final int DEFAULT_AGGREGATE_FILES = 10_000;
    /** An aggregate closes this long after its first file even if small (ATLAS kept files on buffer <= 30 min). */
    public static final long DEFAULT_AGGREGATE_WAIT_MILLIS = 600_000;
    /** Tries of one request before it fails (CTA: 3 per mount, 6 in all). */
    public static final int DEFAULT_MAX_ATTEMPTS = 3;
    /** First retry delay; doubles with each attempt. */
    public static final long DEFAULT_RETRY_BACKOFF_MILLIS = 60_000;
    /** Consecutive errors after which a drive is taken out of service. */
    public static final int DEFAULT_DRIVE_ERROR_LIMIT = 3;
    /** Consecutive robot errors after which mounts pause for the backoff. */
    public static final int DEFAULT_ROBOT_ERROR_LIMIT = 3;
    /**
     * Requests that cannot be served at all (every drive out of service; for flushes, no appendable cartridge
     * of their family) fail with a retriable code once that has lasted this long; 0 = they wait (docs/scheduler.md).
     */
    public static final long DEFAULT_BLOCKED_LIMIT_MILLIS = 4 * 3_600_000L;
    /** A cartridge with less free space than this is closed for writing. */
    /**
     * Tape files written with buffered tape marks before the drive is flushed and their flushes acknowledged; 0:
     * every tape file ends with a synchronous tape mark and is acknowledged at once. Like CTA's default
     * ({@code ArchiveFlushBytesFiles} in cta-taped's {@code TapedConfiguration.hpp}: 200 files, 32 GB).
     */
    public static final int DEFAULT_FLUSH_FILES = 200;
    /** Bytes written with buffered tape marks before the drive is flushed (see {@link #DEFAULT_FLUSH_FILES}). */
    public static final long DEFAULT_FLUSH_BYTES = 32_000_000_000L;
    /** Longest a written tape file waits for the drive's flush (checked between the drive's operations). */
    public static final long DEFAULT_FLUSH_HOLD_MILLIS = 60_000;
    public static final long DEFAULT_FULL_MARGIN_BYTES = DEFAULT_AGGREGATE_BYTES;

    private final String policy;
    private final long minMountBytes;
    private final int minMountFiles;
    private final long quietMillis;
    private final long maxWaitMillis;
    private final long remountGuardMillis;
    private final long dwellMillis;
    private final long idleUnmountMillis;
    private final long mergeGapBytes;
    private final long aggregateBytes;
    private final int aggregateFiles;
    private final long aggregateWaitMillis;
    private final int maxAttempts;
    private final long retryBackoffMillis;
    private final int driveErrorLimit;
    private final int robotErrorLimit;
    private final long blockedLimitMillis;
    private final long fullMarginBytes;
    private final int flushFiles;
    private final long flushBytes;
    private final long flushHoldMillis;
    private final int maxReadDrives;
    private final int maxWriteDrives;
    private final int maxBackgroundDrives;
    private final long repackSpoolBytes;
    private final int migrationRepacks;
    private final double backgroundShare;
    private final long backgroundHoldoffMillis;
    private final ReclaimConfig reclaim;
    private final boolean checkLabels;
    private final boolean verifyAfterWrite;
    private final int verifyPerWeek;
    private final int verifySample;
    private final Map<String, GroupShare> groups;
    private final List<FamilyRule> familyRules;
    private final List<ColocationRule> colocationRules;

    private SchedulerConfig(Builder b) {
        policy = b.policy;
        minMountBytes = b.minMountBytes;
        minMountFiles = b.minMountFiles;
        quietMillis = b.quietMillis;
        maxWaitMillis = b.maxWaitMillis;
        remountGuardMillis = b.remountGuardMillis;
        dwellMillis = b.dwellMillis;
        idleUnmountMillis = b.idleUnmountMillis;
        mergeGapBytes = b.mergeGapBytes;
        aggregateBytes = b.aggregateBytes;
        aggregateFiles = b.aggregateFiles;
        aggregateWaitMillis = b.aggregateWaitMillis;
        maxAttempts = b.maxAttempts;
        retryBackoffMillis = b.retryBackoffMillis;
        driveErrorLimit = b.driveErrorLimit;
        robotErrorLimit = b.robotErrorLimit;
        blockedLimitMillis = b.blockedLimitMillis;
        fullMarginBytes = b.fullMarginBytes;
        flushFiles = b.flushFiles;
        flushBytes = b.flushBytes;
        flushHoldMillis = b.flushHoldMillis;
        maxReadDrives = b.maxReadDrives;
        maxWriteDrives = b.maxWriteDrives;
        maxBackgroundDrives = b.maxBackgroundDrives;
        repackSpoolBytes = b.repackSpoolBytes;
        migrationRepacks = b.migrationRepacks;
        backgroundShare = b.backgroundShare;
        backgroundHoldoffMillis = b.backgroundHoldoffMillis;
        reclaim = b.reclaim;
        checkLabels = b.checkLabels;
        verifyAfterWrite = b.verifyAfterWrite;
        verifyPerWeek = b.verifyPerWeek;
        verifySample = b.verifySample;
        groups = Map.copyOf(b.groups);
        familyRules = List.copyOf(b.familyRules);
        colocationRules = List.copyOf(b.colocationRules);
    }

    public static Builder builder() {
        return new Builder();
    }

    public static SchedulerConfig defaults() {
        return builder().build();
    }

    public String policy() { return policy; }
    public long minMountBytes() { return minMountBytes; }
    public int minMountFiles() { return minMountFiles; }
    public long quietMillis() { return quietMillis; }
    public long maxWaitMillis() { return maxWaitMillis; }
    public long remountGuardMillis() { return remountGuardMillis; }
    public long dwellMillis() { return dwellMillis; }
    public long idleUnmountMillis() { return idleUnmountMillis; }
    public long mergeGapBytes() { return mergeGapBytes; }
    public long aggregateBytes() { return aggregateBytes; }
    public int aggregateFiles() { return aggregateFiles; }
    public long aggregateWaitMillis() { return aggregateWaitMillis; }
    public int maxAttempts() { return maxAttempts; }
    public long retryBackoffMillis() { return retryBackoffMillis; }
    public int driveErrorLimit() { return driveErrorLimit; }
    public int robotErrorLimit() { return robotErrorLimit; }
    public long blockedLimitMillis() { return blockedLimitMillis; }
    public long fullMarginBytes() { return fullMarginBytes; }
    /** Tape files written with buffered tape marks between drive flushes; 0: synchronous marks. */
    public int flushFiles() { return flushFiles; }
    /** Bytes written with buffered tape marks between drive flushes. */
    public long flushBytes() { return flushBytes; }
    /** Longest a written tape file waits for its drive's flush. */
    public long flushHoldMillis() { return flushHoldMillis; }
    /** The settings a mount policy uses. */
    public MountCriteria mountCriteria() {
        return new MountCriteria(minMountBytes, minMountFiles, quietMillis, maxWaitMillis, remountGuardMillis);
    }
    /** Drives that may read at once; 0 means all. */
    public int maxReadDrives() { return maxReadDrives; }
    /** Drives that may write at once; 0 means all. */
    public int maxWriteDrives() { return maxWriteDrives; }
    /** Drives background work (verification) may use at once; 0 = none runs. */
    public int maxBackgroundDrives() { return maxBackgroundDrives; }
    /**
     * Bytes a repack reads into its spool before it writes them out (a batch; a single file larger than this is
     * read alone): each batch costs two cartridge exchanges on a drive, so larger batches amortise them.
     */
    public long repackSpoolBytes() { return repackSpoolBytes; }
    /**
     * Cartridges a media migration repacks at once at most; 0 (the default): one per drive background work may
     * use ({@link #maxBackgroundDrives}). Each repack in flight holds its own spool batch
     * ({@link #repackSpoolBytes}) and its own target cartridge.
     */
    public int migrationRepacks() { return migrationRepacks; }
    /**
     * By how much background work may delay user work, as a share of the user work's time: while user work
     * waits, background work keeps at most {@code floor(drives in service * share / (1 + share))} drives (0: it
     * gives every drive back at its next boundary). See docs/scheduler.md.
     */
    public double backgroundShare() { return backgroundShare; }
    /**
     * How long no user work must have waited for a drive before background work that gave drives back takes an
     * idle drive again, and the least drive time its share must have earned before it takes one while user work
     * waits (hysteresis against mount thrashing). See docs/scheduler.md.
     */
    public long backgroundHoldoffMillis() { return backgroundHoldoffMillis; }
    /** The automatic reclamation policy. */
    public ReclaimConfig reclaim() { return reclaim; }
    /** Whether each mount reads and checks the cartridge label (off only for size-only simulation). */
    public boolean checkLabels() { return checkLabels; }
    /** Whether each written tape file is read back and its checksums compared before the commit. */
    public boolean verifyAfterWrite() { return verifyAfterWrite; }

    /** Cartridges the periodic verification policy verifies per week, oldest verification first; 0 = off. */
    public int verifyPerWeek() { return verifyPerWeek; }

    /** Aggregates a periodic verification reads, spread over the cartridge; 0 = all of them. */
    public int verifySample() { return verifySample; }

    /** Share and caps of a group; groups not configured get {@link GroupShare#DEFAULT}. */
    public GroupShare group(String name) {
        return groups.getOrDefault(name, GroupShare.DEFAULT);
    }

    public Map<String, GroupShare> groups() {
        return groups;
    }

    /** The tape family of a storage class: the first matching rule, else the storage class itself. */
    public String familyOf(String storageClass) {
        for (FamilyRule rule : familyRules) {
            if (rule.pattern().matcher(storageClass).matches()) {
                return rule.family();
            }
        }
        return storageClass;
    }

    /**
     * The co-location key (dataset) of a file: the explicit hint if any, else the first path rule that
     * matches (its replacement expanded), else the parent directory of the path, else "".
     */
    public String datasetOf(String hint, String path) {
        if (hint != null && !hint.isEmpty()) {
            return hint;
        }
        if (path == null || path.isEmpty()) {
            return "";
        }
        for (ColocationRule rule : colocationRules) {
            Matcher m = rule.pattern().matcher(path);
            if (m.matches()) {
                return m.replaceFirst(rule.replacement());
            }
        }
        int slash = path.lastIndexOf('/');
        return slash > 0 ? path.substring(0, slash) : "";
    }

    /** Effective settings, one per line, for the log at start. */
    @Override
    public String toString() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("policy", policy);
        m.put("minMountBytes", minMountBytes);
        m.put("minMountFiles", minMountFiles);
        m.put("quietMillis", quietMillis);
        m.put("maxWaitMillis", maxWaitMillis);
        m.put("remountGuardMillis", remountGuardMillis);
        m.put("dwellMillis", dwellMillis);
        m.put("idleUnmountMillis", idleUnmountMillis);
        m.put("mergeGapBytes", mergeGapBytes);
        m.put("aggregateBytes", aggregateBytes);
        m.put("aggregateFiles", aggregateFiles);
        m.put("aggregateWaitMillis", aggregateWaitMillis);
        m.put("maxAttempts", maxAttempts);
        m.put("retryBackoffMillis", retryBackoffMillis);
        m.put("driveErrorLimit", driveErrorLimit);
        m.put("robotErrorLimit", robotErrorLimit);
        m.put("blockedLimitMillis", blockedLimitMillis);
        m.put("fullMarginBytes", fullMarginBytes);
        m.put("flushFiles", flushFiles);
        m.put("flushBytes", flushBytes);
        m.put("flushHoldMillis", flushHoldMillis);
        m.put("maxReadDrives", maxReadDrives);
        m.put("maxWriteDrives", maxWriteDrives);
        m.put("maxBackgroundDrives", maxBackgroundDrives);
        m.put("repackSpoolBytes", repackSpoolBytes);
        m.put("migrationRepacks", migrationRepacks);
        m.put("backgroundShare", backgroundShare);
        m.put("backgroundHoldoffMillis", backgroundHoldoffMillis);
        m.put("reclaim", reclaim);
        m.put("checkLabels", checkLabels);
        m.put("verifyAfterWrite", verifyAfterWrite);
        m.put("verifyPerWeek", verifyPerWeek);
        m.put("verifySample", verifySample);
        m.put("groups", groups);
        m.put("familyRules", familyRules);
        m.put("colocationRules", colocationRules);
        return m.toString();
    }

    /**
     * Fair share and drive caps of one group (experiment).
     *
     * @param share     relative weight; drives are divided between groups with work in proportion
     * @param maxDrives most drives the group may use at once, 0 for no cap
     */
    public record GroupShare(double share, int maxDrives) {
        public static final GroupShare DEFAULT = new GroupShare(1, 0);

        public GroupShare {
            if (!(share > 0) || maxDrives < 0) {
                throw new IllegalArgumentException("share must be > 0 and maxDrives >= 0");
            }
        }
    }

    /** Storage classes matching {@code pattern} (whole string) belong to tape family {@code family}. */
    public record FamilyRule(Pattern pattern, String family) {
        @Override
        public String toString() {
            return pattern + "->" + family;
        }
    }

    /** Paths matching {@code pattern} (whole path) get the dataset {@code replacement} ($1 etc. expand). */
    public record ColocationRule(Pattern pattern, String replacement) {
        @Override
        public String toString() {
            return pattern + "->" + replacement;
        }
    }

    /** Collects settings; {@link #build()} validates them all and names the first bad key. */
    public static final class Builder {
        private String policy = "tapeq";
        private long minMountBytes = DEFAULT_MIN_MOUNT_BYTES;
        private int minMountFiles = DEFAULT_MIN_MOUNT_FILES;
        private long quietMillis = DEFAULT_QUIET_MILLIS;
        private long maxWaitMillis = DEFAULT_MAX_WAIT_MILLIS;
        private long remountGuardMillis = DEFAULT_REMOUNT_GUARD_MILLIS;
        private long dwellMillis = DEFAULT_DWELL_MILLIS;
        private long idleUnmountMillis = DEFAULT_IDLE_UNMOUNT_MILLIS;
        private long mergeGapBytes = DEFAULT_MERGE_GAP_BYTES;
        private long aggregateBytes = DEFAULT_AGGREGATE_BYTES;
        private int aggregateFiles = DEFAULT_AGGREGATE_FILES;
        private long aggregateWaitMillis = DEFAULT_AGGREGATE_WAIT_MILLIS;
        private int maxAttempts = DEFAULT_MAX_ATTEMPTS;
        private long retryBackoffMillis = DEFAULT_RETRY_BACKOFF_MILLIS;
        private int driveErrorLimit = DEFAULT_DRIVE_ERROR_LIMIT;
        private int robotErrorLimit = DEFAULT_ROBOT_ERROR_LIMIT;
        private long blockedLimitMillis = DEFAULT_BLOCKED_LIMIT_MILLIS;
        private long fullMarginBytes = DEFAULT_FULL_MARGIN_BYTES;
        private int flushFiles = DEFAULT_FLUSH_FILES;
        private long flushBytes = DEFAULT_FLUSH_BYTES;
        private long flushHoldMillis = DEFAULT_FLUSH_HOLD_MILLIS;
        private int maxReadDrives;
        private int maxWriteDrives;
        private int maxBackgroundDrives = 1;
        private long repackSpoolBytes = DEFAULT_REPACK_SPOOL_BYTES;
        private int migrationRepacks;
        private double backgroundShare;
        private long backgroundHoldoffMillis = DEFAULT_BACKGROUND_HOLDOFF_MILLIS;
        private ReclaimConfig reclaim = ReclaimConfig.OFF;
        private boolean checkLabels = true;
        private boolean verifyAfterWrite;
        private int verifyPerWeek;
        private int verifySample;
        private final Map<String, GroupShare> groups = new LinkedHashMap<>();
        private final List<FamilyRule> familyRules = new ArrayList<>();
        private final List<ColocationRule> colocationRules = new ArrayList<>();

        public Builder policy(String v) { policy = Objects.requireNonNull(v, "policy"); return this; }
        public Builder minMountBytes(long v) { minMountBytes = v; return this; }
        public Builder minMountFiles(int v) { minMountFiles = v; return this; }
        public Builder quietMillis(long v) { quietMillis = v; return this; }
        public Builder maxWaitMillis(long v) { maxWaitMillis = v; return this; }
        public Builder remountGuardMillis(long v) { remountGuardMillis = v; return this; }
        public Builder dwellMillis(long v) { dwellMillis = v; return this; }
        public Builder idleUnmountMillis(long v) { idleUnmountMillis = v; return this; }
        public Builder mergeGapBytes(long v) { mergeGapBytes = v; return this; }
        public Builder aggregateBytes(long v) { aggregateBytes = v; return this; }
        public Builder aggregateFiles(int v) { aggregateFiles = v; return this; }
        public Builder aggregateWaitMillis(long v) { aggregateWaitMillis = v; return this; }
        public Builder maxAttempts(int v) { maxAttempts = v; return this; }
        public Builder retryBackoffMillis(long v) { retryBackoffMillis = v; return this; }
        public Builder driveErrorLimit(int v) { driveErrorLimit = v; return this; }
        public Builder robotErrorLimit(int v) { robotErrorLimit = v; return this; }
        public Builder blockedLimitMillis(long v) { blockedLimitMillis = v; return this; }
        public Builder fullMarginBytes(long v) { fullMarginBytes = v; return this; }
        public Builder flushFiles(int v) { flushFiles = v; return this; }
        public Builder flushBytes(long v) { flushBytes = v; return this; }
        public Builder flushHoldMillis(long v) { flushHoldMillis = v; return this; }
        public Builder maxReadDrives(int v) { maxReadDrives = v; return this; }
        public Builder maxWriteDrives(int v) { maxWriteDrives = v; return this; }
        public Builder maxBackgroundDrives(int v) { maxBackgroundDrives = v; return this; }
        public Builder repackSpoolBytes(long v) { repackSpoolBytes = v; return this; }
        public Builder migrationRepacks(int v) { migrationRepacks = v; return this; }
        public Builder backgroundShare(double v) { backgroundShare = v; return this; }
        public Builder backgroundHoldoffMillis(long v) { backgroundHoldoffMillis = v; return this; }
        public Builder reclaim(ReclaimConfig v) { reclaim = Objects.requireNonNull(v, "reclaim"); return this; }
        public Builder checkLabels(boolean v) { checkLabels = v; return this; }
        public Builder verifyAfterWrite(boolean v) { verifyAfterWrite = v; return this; }
        public Builder verifyPerWeek(int v) { verifyPerWeek = v; return this; }
        public Builder verifySample(int v) { verifySample = v; return this; }
        public Builder group(String name, double share, int maxDrives) {
            groups.put(Objects.requireNonNull(name, "group"), new GroupShare(share, maxDrives));
            return this;
        }
        public Builder familyRule(String storageClassRegex, String family) {
            familyRules.add(new FamilyRule(compile("families", storageClassRegex), family));
            return this;
        }
        public Builder colocationRule(String pathRegex, String replacement) {
            colocationRules.add(new ColocationRule(compile("colocation", pathRegex), replacement));
            return this;
        }

        public SchedulerConfig build() {
            positive("minMountBytes", minMountBytes);
            positive("minMountFiles", minMountFiles);
            nonNegative("quietMillis", quietMillis);
            positive("maxWaitMillis", maxWaitMillis);
            nonNegative("remountGuardMillis", remountGuardMillis);
            nonNegative("dwellMillis", dwellMillis);
            positive("idleUnmountMillis", idleUnmountMillis);
            nonNegative("mergeGapBytes", mergeGapBytes);
            positive("aggregateBytes", aggregateBytes);
            positive("aggregateFiles", aggregateFiles);
            positive("aggregateWaitMillis", aggregateWaitMillis);
            positive("maxAttempts", maxAttempts);
            nonNegative("retryBackoffMillis", retryBackoffMillis);
            positive("driveErrorLimit", driveErrorLimit);
            positive("robotErrorLimit", robotErrorLimit);
            nonNegative("blockedLimitMillis", blockedLimitMillis);
            nonNegative("fullMarginBytes", fullMarginBytes);
            nonNegative("flushFiles", flushFiles);
            positive("flushBytes", flushBytes);
            positive("flushHoldMillis", flushHoldMillis);
            nonNegative("maxReadDrives", maxReadDrives);
            nonNegative("maxWriteDrives", maxWriteDrives);
            nonNegative("maxBackgroundDrives", maxBackgroundDrives);
            nonNegative("backgroundHoldoffMillis", backgroundHoldoffMillis);
            positive("repackSpoolBytes", repackSpoolBytes);
            nonNegative("migrationRepacks", migrationRepacks);
            nonNegative("verifyPerWeek", verifyPerWeek);
            nonNegative("verifySample", verifySample);
            if (verifyPerWeek > MAX_VERIFY_PER_WEEK) {
                throw new IllegalArgumentException("verifyPerWeek must be at most " + MAX_VERIFY_PER_WEEK
                        + " (one a minute), was " + verifyPerWeek);
            }
            if (verifyPerWeek > 0 && maxBackgroundDrives == 0) {
                throw new IllegalArgumentException("verifyPerWeek (" + verifyPerWeek + ") needs background work:"
                        + " maxBackgroundDrives is 0, no verification would run");
            }
            if (!(backgroundShare >= 0 && backgroundShare <= 1)) {
                throw new IllegalArgumentException("backgroundShare must be between 0 and 1, was " + backgroundShare);
            }
            if (quietMillis > maxWaitMillis) {
                throw new IllegalArgumentException("quietMillis (" + quietMillis + ") must not exceed maxWaitMillis ("
                        + maxWaitMillis + ")");
            }
            return new SchedulerConfig(this);
        }

        private static Pattern compile(String key, String regex) {
            try {
                return Pattern.compile(regex);
            } catch (RuntimeException e) {
                throw new IllegalArgumentException(key + ": invalid pattern '" + regex + "': " + e.getMessage(), e);
            }
        }

        private static void positive(String key, long v) {
            if (v <= 0) {
                throw new IllegalArgumentException(key + " must be > 0, was " + v);
            }
        }

        private static void nonNegative(String key, long v) {
            if (v < 0) {
                throw new IllegalArgumentException(key + " must be >= 0, was " + v);
            }
        }
    }
}
