package org.tapeq.poolemulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import diskCacheV111.util.PnfsId;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The emulator must catch the contract violations a real pool trips over, or plugin tests prove nothing. */
class PoolEmulatorTest {
    @TempDir
    Path data;

    private PoolEmulator pool() {
        return PoolEmulator.builder().hsm("osm", "tape1").dataDirectory(data).stageTimeoutMillis(1000).build();
    }

    @Test
    void deadline_isUnsetBeforeActivationAndCountsFromIt() {
        PoolEmulator pool = pool();
        EmulatedStageRequest stage = pool.newStage(new PnfsId("00AB"), 1, "a:b", null, List.of());
        assertEquals(Long.MAX_VALUE, stage.getDeadline());
        long before = System.currentTimeMillis();
        stage.activate();
        assertTrue(stage.getDeadline() >= before + 1000 && stage.getDeadline() <= System.currentTimeMillis() + 1000);
        ExecutionException e = assertThrows(ExecutionException.class, () -> stage.activate().get());
        assertTrue(e.getCause().getMessage().contains("already active"));
    }

    @Test
    void completion_twiceOrUnactivatedOrWithoutReplica_isAViolation() {
        PoolEmulator pool = pool();
        EmulatedFlushRequest flush = pool.newFlush(new PnfsId("00AB"), 1, "a:b", null, List.of());
        flush.completed(Set.of(URI.create("osm://tape1?bfid=00AB")));
        flush.failed(1, "again");
        assertEquals(2, pool.violations().size(), pool.violations().toString()); // unactivated, then twice

        PoolEmulator other = pool();
        EmulatedFlushRequest wrongUri = other.newFlush(new PnfsId("00AC"), 1, "a:b", null, List.of());
        wrongUri.activate();
        wrongUri.completed(Set.of(URI.create("osm://elsewhere?bfid=00AC")));
        assertTrue(other.violations().get(0).contains("dCache rejects it"), other.violations().toString());
        assertFalse(wrongUri.outcome().isCompleted());

        EmulatedStageRequest stage = other.newStage(new PnfsId("00AD"), 1, "a:b", null, List.of());
        stage.activate();
        stage.allocate();
        stage.completed(Set.of());
        assertTrue(other.violations().get(1).contains("no replica file"), other.violations().toString());

        EmulatedStageRequest poolKiller = other.newStage(new PnfsId("00AE"), 1, "a:b", null, List.of());
        poolKiller.activate();
        poolKiller.failed(42, "read error");
        assertTrue(other.violations().get(2).contains("disables a dCache pool"), other.violations().toString());
    }

    /** dCache's {@code PoolV4.ReplyToPoolFetch.failed}: 41-43 and 204 disable the pool, 210 counts as a success. */
    @Test
    void stageFailure_withACodeDCacheTreatsSpecially_isAViolation() {
        PoolEmulator pool = pool();
        int[] codes = {41, 43, 204, 210, 1, 31, 33};
        for (int i = 0; i < codes.length; i++) {
            EmulatedStageRequest stage = pool.newStage(new PnfsId("00B" + i), 1, "a:b", null, List.of());
            stage.activate();
            stage.failed(codes[i], "rc " + codes[i]);
        }
        List<String> v = pool.violations();
        assertEquals(4, v.size(), v.toString());
        assertTrue(v.get(2).contains("rc 204, which disables a dCache pool"), v.toString());
        assertTrue(v.get(3).contains("rc 210, which dCache reports as a success"), v.toString());
    }
}
