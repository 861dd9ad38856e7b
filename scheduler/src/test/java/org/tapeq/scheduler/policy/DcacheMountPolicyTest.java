package org.tapeq.scheduler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.model.MediaType;

class DcacheMountPolicyTest {

    private static final long TB = 1_000_000_000_000L;
    private static final long T0 = 1_000_000;
    private final DcacheMountPolicy policy = new DcacheMountPolicy();

    /** A read queue on an LTO-9 cartridge (18 TB) holding {@code used} bytes. */
    private static QueueView reads(long bytes, long oldest, long newest, long used) {
        return new QueueView() {
            public long files() { return 10; }
            public long bytes() { return bytes; }
            public long oldestArrival() { return oldest; }
            public long lastArrival() { return newest; }
            public int maxPriority() { return 0; }
            public long earliestDeadline() { return Long.MAX_VALUE; }
            public long lastUnmount() { return Long.MIN_VALUE; }
            public long retryNotBefore() { return Long.MIN_VALUE; }
            public boolean writeOnly() { return false; }
            public MediaType media() { return MediaType.LTO9; }
            @Override
            public long cartridgeUsedBytes() { return used; }
        };
    }

    @Test
    void belowTheVolumeThresholdATapeWaitsForItsOldestRequestToExpire() {
        QueueView q = reads(14 * TB, T0, T0 + 600_000, 18 * TB); // 77.8 % of capacity, 77.8 % of used
        assertEquals(T0 + DcacheMountPolicy.MAX_WAIT_MILLIS, policy.eligibleAt(q));
    }

    @Test
    void atTheVolumeThresholdATapeGoesTwoMinutesAfterItsNewestRequest() {
        QueueView q = reads(14_400_000_000_000L, T0, T0 + 600_000, 18 * TB); // exactly 80 % of 18 TB
        assertEquals(T0 + 600_000 + DcacheMountPolicy.MIN_WAIT_MILLIS, policy.eligibleAt(q));
    }

    @Test
    void requestsCoveringNearlyAllThatIsWrittenCountAsSufficient() {
        QueueView most = reads(950_000_000_000L, T0, T0, TB); // 95 % of the 1 TB written, 5 % of capacity
        QueueView less = reads(940_000_000_000L, T0, T0, TB);
        assertEquals(T0 + DcacheMountPolicy.MIN_WAIT_MILLIS, policy.eligibleAt(most));
        assertEquals(T0 + DcacheMountPolicy.MAX_WAIT_MILLIS, policy.eligibleAt(less));
    }

    @Test
    void theMaximumWaitReleasesASufficientTapeWhoseRequestsKeepArriving() {
        // requests arrive every minute for 2 h: the newest is never 2 min old, the oldest expires after 1 h
        QueueView q = reads(17 * TB, T0, T0 + 7_200_000, 18 * TB);
        assertEquals(T0 + DcacheMountPolicy.MAX_WAIT_MILLIS, policy.eligibleAt(q));
    }

    @Test
    void unknownUsedSpaceFallsBackToCapacity() {
        assertEquals(T0 + DcacheMountPolicy.MAX_WAIT_MILLIS, policy.eligibleAt(reads(TB, T0, T0, -1)));
    }

    @Test
    void oldestRequestRanksFirst() {
        assertTrue(policy.rank(reads(TB, T0, T0, -1)) > policy.rank(reads(17 * TB, T0 + 1, T0 + 1, -1)));
    }

    @Test
    void registeredAsDcache() {
        assertTrue(MountPolicies.create("dcache", null) instanceof DcacheMountPolicy);
    }
}
