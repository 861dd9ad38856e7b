package org.tapeq.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import diskCacheV111.util.PnfsId;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.poolemulator.PoolEmulator;

/**
 * The registry with consecutive pnfsids, whose dCache hash codes collide in bulk: every task is found by its
 * file name in either case and by its request id, chained tasks for one pnfsid take their turn, and nothing
 * is left once every task is retired.
 */
class RequestRegistryTest {

    @TempDir
    Path tmp;

    @Test
    void consecutivePnfsIds_eachFoundByNameInEitherCase_thenAllRetired() throws Exception {
        try (PoolEmulator pool = PoolEmulator.builder().hsm("osm", "t").dataDirectory(tmp).build()) {
            RequestRegistry registry = new RequestRegistry();
            List<Task> tasks = new ArrayList<>();
            int n = 20_000;
            for (int i = 0; i < n; i++) {
                Task task = task(pool, String.format("0000%032X", i));
                assertTrue(registry.admit(task), task.toString());
                tasks.add(task);
            }
            assertEquals(n, registry.size());
            for (Task task : tasks) {
                assertSame(task, registry.byFileName(task.name()));
                assertSame(task, registry.byFileName(task.name().toLowerCase(Locale.ROOT)));
                assertSame(task, registry.byId(task.request.getId()));
            }
            assertNull(registry.byFileName(String.format("0000%032X", n)));
            for (Task task : tasks) {
                assertNull(registry.retire(task));
            }
            assertEquals(0, registry.size());
            assertNull(registry.byFileName(tasks.get(0).name()));
        }
    }

    @Test
    void secondTaskForOnePnfsId_waitsForTheFirst() throws Exception {
        try (PoolEmulator pool = PoolEmulator.builder().hsm("osm", "t").dataDirectory(tmp).build()) {
            RequestRegistry registry = new RequestRegistry();
            Task first = task(pool, "00000000000000000000000000000000002A");
            Task second = task(pool, "00000000000000000000000000000000002A");
            assertTrue(registry.admit(first));
            assertFalse(registry.admit(second));
            assertSame(first, registry.byFileName(first.name()));
            assertSame(second, registry.retire(first));
            assertSame(second, registry.byFileName(first.name()));
            assertNull(registry.retire(second));
            assertNull(registry.byFileName(first.name()));
        }
    }

    private static Task task(PoolEmulator pool, String pnfsid) {
        PnfsId id = new PnfsId(pnfsid);
        return new StageTask(null, pool.newStage(id, 1, "atlas:raw", null, null), id);
    }
}
