package org.tapeq.daemon.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.tapeq.daemon.bridge.BridgeRig.awaitTrue;
import static org.tapeq.daemon.bridge.BridgeRig.status;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.protocol.AtomicFiles;
import org.tapeq.protocol.Request;
import org.tapeq.protocol.RequestCodec;
import org.tapeq.protocol.RequestDirectory;
import org.tapeq.scheduler.catalog.Catalog;

/**
 * The flushes one task admits (a restart's first listing may admit a million) are looked up in the catalog
 * together, not one query each: the catalog writer is one FIFO, and single lookups would queue ahead of commits.
 */
class FlushLookupBatchingTest {

    private static final long HOUR = 3_600_000;
    private static final int FLUSHES = 1000;

    @TempDir
    Path tmp;

    private final AtomicInteger singleLookups = new AtomicInteger();
    private final AtomicInteger batchLookups = new AtomicInteger();
    private BridgeRig rig;

    @AfterEach
    void close() {
        if (rig != null) {
            rig.close();
        }
    }

    @Test
    void manyFlushesInOneListing_areLookedUpInBatches_notOneByOne() throws Exception {
        rig = new BridgeRig(tmp, this::counting);
        RequestDirectory dir = RequestDirectory.create(tmp.resolve("endit"));
        Path replica = Files.write(tmp.resolve("replica"), new byte[10]);
        for (int i = 0; i < FLUSHES; i++) {
            String pnfsid = String.format("0000%032X", i);
            AtomicFiles.write(dir.requestFile(pnfsid), RequestCodec.toBytes(Request.flush(10, 1, "atlas:raw",
                    "/p/" + pnfsid, null, null, null)));
            Files.createLink(dir.outLink(pnfsid), replica);
        }
        int batchesBefore = batchLookups.get();
        DirectoryBridge bridge = rig.bridge("fb", dir, rig.pool(2, 16), HOUR);
        bridge.start().get(60, TimeUnit.SECONDS);

        awaitTrue("every flush checked", () -> {
            Map<String, Integer> r = status(bridge).requests();
            return r.values().stream().mapToInt(Integer::intValue).sum() == FLUSHES
                    && r.getOrDefault("checking", 0) == 0 && r.getOrDefault("waiting_link", 0) == 0;
        });
        assertEquals(0, singleLookups.get(), "single file() lookups");
        int batches = batchLookups.get() - batchesBefore;
        assertTrue(batches >= 1 && batches <= 2 * (FLUSHES / Intake.PARSE_BATCH + 1),
                batches + " files() lookups for " + FLUSHES + " flushes");
    }

    /** {@code catalog}, counting its lookups of files by pnfsid. */
    private Catalog counting(Catalog catalog) {
        return (Catalog) Proxy.newProxyInstance(Catalog.class.getClassLoader(), new Class<?>[] {Catalog.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("file")) {
                        singleLookups.incrementAndGet();
                    } else if (method.getName().equals("files") && args[0] instanceof Collection) {
                        batchLookups.incrementAndGet();
                    }
                    try {
                        return method.invoke(catalog, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
