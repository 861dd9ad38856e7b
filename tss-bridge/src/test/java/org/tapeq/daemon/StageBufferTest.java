package org.tapeq.daemon;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Staged files never fill in/ beyond the configured buffer, however slowly the pool takes them. */
class StageBufferTest {

    @TempDir
    Path tmp;

    @Test
    void inNeverHoldsMoreThanTheBuffer_andEveryFileStillArrives() throws Exception {
        int files = 12;
        int size = 100_000;
        long buffer = 250_000;
        try (DaemonFixture f = new DaemonFixture(tmp, "")) {
            f.directoryYaml = "    stageBuffer: " + buffer;
            f.start();
            f.labelAll();
            Map<String, byte[]> data = new HashMap<>();
            for (int i = 0; i < files; i++) {
                String id = DaemonFixture.newPnfsId();
                data.put(id, DaemonFixture.randomBytes(size));
                f.flush(id, data.get(id), true);
            }
            for (String id : data.keySet()) {
                assertNull(f.awaitFlush(id));
                f.collect(id);
            }
            for (String id : data.keySet()) {
                f.stage(id, size, null, true);
            }
            AtomicLong most = new AtomicLong();
            List<String> taken = new ArrayList<>();
            long deadline = System.nanoTime() + DaemonFixture.WAIT.toNanos();
            while (taken.size() < files && System.nanoTime() < deadline) {
                most.accumulateAndGet(inUse(f, data.keySet(), taken), Math::max);
                for (String id : data.keySet()) {
                    if (!taken.contains(id) && DaemonFixture.exists(f.dir.inFile(id))) {
                        Thread.sleep(100); // a slow pool
                        most.accumulateAndGet(inUse(f, data.keySet(), taken), Math::max); // the fullest moment
                        assertArrayEquals(data.get(id), Files.readAllBytes(f.dir.inFile(id)));
                        f.collect(id);
                        taken.add(id);
                        break;
                    }
                }
                Thread.sleep(5);
            }
            assertTrue(taken.size() == files, "all staged: " + taken.size());
            assertTrue(most.get() <= buffer, "in/ held " + most.get() + " bytes, more than the " + buffer + " buffer");
            assertTrue(most.get() >= size, "staged files were seen in in/: " + most.get());
            assertTrue(f.freshBridge().bufferRefusals() > 0, "reads had to wait");
        }
    }

    /** Bytes of staged files in in/ that the pool has not taken yet. */
    private static long inUse(DaemonFixture f, Set<String> ids, List<String> taken) throws Exception {
        long bytes = 0;
        for (String id : ids) {
            Path in = f.dir.inFile(id);
            if (!taken.contains(id) && DaemonFixture.exists(in)) {
                try {
                    bytes += Files.size(in);
                } catch (NoSuchFileException e) {
                    // taken meanwhile
                }
            }
        }
        return bytes;
    }
}
