package org.tapeq.scheduler.engine.lifecycle;

/**
 * The automatic reclamation policy's settings ({@code reclaim:} in the daemon's configuration), validated once
 * here; each error names its key.
 *
 * @param enabled        whether the policy starts repacks at all (off by default)
 * @param threshold      a FULL cartridge whose live bytes / written bytes fall below this is repacked (0 to 1)
 * @param maxRepacks     repacks (the operator's included) unfinished at once beyond which the policy starts none
 * @param minAgeMillis   time since a cartridge's last aggregate was written before the policy repacks it
 * @param intervalMillis least time between two looks at the catalog (a look follows deletes, repack ends,
 *                       cartridges closing or turning SUSPECT, and a resume)
 * @param relabel        whether a cartridge a repack of this policy left EMPTY (never SUSPECT) is relabelled for
 *                       its own family and so returns to the scratch pool ({@link ScratchReturn}; off by default)
 */
public record ReclaimConfig(boolean enabled, double threshold, int maxRepacks, long minAgeMillis,
                            long intervalMillis, boolean relabel) {

    public static final String ENABLED = "enabled";
    public static final String THRESHOLD = "threshold";
    public static final String MAX_REPACKS = "maxRepacks";
    public static final String MIN_AGE = "minAge";
    public static final String INTERVAL = "interval";
    public static final String RELABEL = "relabel";

    public static final double DEFAULT_THRESHOLD = 0.3;
    public static final int DEFAULT_MAX_REPACKS = 2;
    public static final long DEFAULT_MIN_AGE_MILLIS = 7L * 24 * 3600 * 1000;
    public static final long DEFAULT_INTERVAL_MILLIS = 10L * 60 * 1000;

    /** The policy off, every other setting at its default. */
    public static final ReclaimConfig OFF = new ReclaimConfig(false, DEFAULT_THRESHOLD, DEFAULT_MAX_REPACKS,
            DEFAULT_MIN_AGE_MILLIS, DEFAULT_INTERVAL_MILLIS, false);

    public ReclaimConfig {
        if (!(threshold > 0 && threshold < 1)) {
            throw new IllegalArgumentException(THRESHOLD + " must be between 0 and 1 (a live fraction), was "
                    + threshold);
        }
        if (maxRepacks < 1) {
            throw new IllegalArgumentException(MAX_REPACKS + " must be >= 1, was " + maxRepacks);
        }
        if (minAgeMillis < 0) {
            throw new IllegalArgumentException(MIN_AGE + " must be >= 0, was " + minAgeMillis);
        }
        if (intervalMillis <= 0) {
            throw new IllegalArgumentException(INTERVAL + " must be > 0, was " + intervalMillis);
        }
        if (relabel && !enabled) {
            throw new IllegalArgumentException(RELABEL + " relabels what the policy empties: it needs "
                    + ENABLED + ": true");
        }
    }

    /** The settings without automatic relabelling ({@code relabel} false). */
    public ReclaimConfig(boolean enabled, double threshold, int maxRepacks, long minAgeMillis, long intervalMillis) {
        this(enabled, threshold, maxRepacks, minAgeMillis, intervalMillis, false);
    }

    /** The same settings with automatic relabelling on or off. */
    public ReclaimConfig withRelabel(boolean on) {
        return new ReclaimConfig(enabled, threshold, maxRepacks, minAgeMillis, intervalMillis, on);
    }
}
