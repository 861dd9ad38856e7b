package org.tapeq.provider;

/**
 * How often one provider instance lost directory events and what it read to make up for them, since it started:
 * for benchmarks, tests and an operator's diagnosis. A value; {@link TapeqNearlineStorage#scanCounts()} takes a
 * new one.
 */
public final class ScanCounts {
    private final long overflows;
    private final long fullRescans;
    private final long recoveries;
    private final long recoveryEntries;

    ScanCounts(long overflows, long fullRescans, long recoveries, long recoveryEntries) {
        this.overflows = overflows;
        this.fullRescans = fullRescans;
        this.recoveries = recoveries;
        this.recoveryEntries = recoveryEntries;
    }

    /** Event-queue overflows reported by the directory watcher (one per watched subdirectory affected). */
    public long overflows() {
        return overflows;
    }

    /** Full rescans (the periodic one, which also runs at start). */
    public long fullRescans() {
        return fullRescans;
    }

    /** Recovery scans of one subdirectory after its events were lost. */
    public long recoveries() {
        return recoveries;
    }

    /** Directory entries read by the recovery scans. */
    public long recoveryEntries() {
        return recoveryEntries;
    }

    @Override
    public String toString() {
        return overflows + " overflows, " + fullRescans + " full rescans, " + recoveries + " recovery scans reading "
                + recoveryEntries + " entries";
    }
}
