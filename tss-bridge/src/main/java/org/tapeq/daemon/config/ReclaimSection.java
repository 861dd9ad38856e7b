package org.tapeq.daemon.config;

import org.tapeq.config.ConfigNode;
import org.tapeq.config.Units;
import org.tapeq.scheduler.engine.lifecycle.ReclaimConfig;

/**
 * Maps {@code reclaim:} (the automatic reclamation policy) onto a {@link ReclaimConfig}, whose constructor
 * validates the values; an error names the key. Defaults are {@link ReclaimConfig#OFF}'s.
 */
final class ReclaimSection {

    static final String RECLAIM = "reclaim";

    private ReclaimSection() {
    }

    static ReclaimConfig parse(ConfigNode root) {
        ConfigNode node = root.map(RECLAIM);
        node.allow(java.util.List.of(ReclaimConfig.ENABLED, ReclaimConfig.THRESHOLD, ReclaimConfig.MAX_REPACKS,
                ReclaimConfig.MIN_AGE, ReclaimConfig.INTERVAL, ReclaimConfig.RELABEL));
        ReclaimConfig d = ReclaimConfig.OFF;
        boolean enabled = node.bool(ReclaimConfig.ENABLED, d.enabled());
        double threshold = node.number(ReclaimConfig.THRESHOLD, d.threshold(), 0);
        if (threshold >= 1) {
            throw node.error(ReclaimConfig.THRESHOLD, "must be below 1 (a live fraction), was " + threshold);
        }
        int maxRepacks = (int) node.integer(ReclaimConfig.MAX_REPACKS, d.maxRepacks(), 1, Integer.MAX_VALUE);
        long minAge = node.duration(ReclaimConfig.MIN_AGE, d.minAgeMillis());
        long interval = node.duration(ReclaimConfig.INTERVAL, d.intervalMillis());
        boolean relabel = node.bool(ReclaimConfig.RELABEL, d.relabel());
        try {
            return new ReclaimConfig(enabled, threshold, maxRepacks, minAge, interval, relabel);
        } catch (IllegalArgumentException e) {
            String key = e.getMessage().substring(0, Math.max(0, e.getMessage().indexOf(' ')));
            throw node.error(key, e.getMessage());
        }
    }

    static void describe(ReclaimConfig c, YamlText out) {
        out.put(0, RECLAIM, null).put(1, ReclaimConfig.ENABLED, c.enabled())
                .put(1, ReclaimConfig.THRESHOLD, c.threshold())
                .put(1, ReclaimConfig.MAX_REPACKS, c.maxRepacks())
                .put(1, ReclaimConfig.MIN_AGE, Units.formatDuration(c.minAgeMillis()))
                .put(1, ReclaimConfig.INTERVAL, Units.formatDuration(c.intervalMillis()))
                .put(1, ReclaimConfig.RELABEL, c.relabel());
    }
}
