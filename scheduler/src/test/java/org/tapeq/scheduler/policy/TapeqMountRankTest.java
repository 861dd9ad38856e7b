package org.tapeq.scheduler.policy;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.engine.SchedulerConfig;
import org.tapeq.scheduler.model.MediaType;

/** {@link TapeqMountPolicy#rank}: in a burst the mount estimated to take longest goes first. */
class TapeqMountRankTest {

    private static final long GB = 1_000_000_000L;
    private final TapeqMountPolicy policy = new TapeqMountPolicy(SchedulerConfig.defaults().mountCriteria());

    private static QueueView queue(long files, long bytes, long runs) {
        return new QueueView() {
            @Override public long files() { return files; }
            @Override public long bytes() { return bytes; }
            @Override public long oldestArrival() { return 0; }
            @Override public long lastArrival() { return 0; }
            @Override public int maxPriority() { return 0; }
            @Override public long earliestDeadline() { return Long.MAX_VALUE; }
            @Override public long lastUnmount() { return Long.MIN_VALUE; }
            @Override public long retryNotBefore() { return Long.MIN_VALUE; }
            @Override public boolean writeOnly() { return false; }
            @Override public MediaType media() { return MediaType.LTO9; }
            @Override public long runs() { return runs; }
        };
    }

    @Test
    void rank_coLocatedFiles_moreStreamingGoesFirstWhateverTheFileCount() {
        // 900 files in 3 runs, 1 500 GB (3 750 s of reading) against 500 files in 2 runs, 1 800 GB (4 500 s)
        QueueView manySmaller = queue(900, 1_500 * GB, 3);
        QueueView fewerLonger = queue(500, 1_800 * GB, 2);
        assertTrue(policy.rank(fewerLonger) > policy.rank(manySmaller));
    }

    @Test
    void rank_scatteredFiles_positioningCounts() {
        // the same bytes; 500 files each in its own run cost about 12 s of locate each
        QueueView scattered = queue(500, 1_000 * GB, 500);
        QueueView coLocated = queue(500, 1_200 * GB, 2);
        assertTrue(policy.rank(scattered) > policy.rank(coLocated));
    }
}
