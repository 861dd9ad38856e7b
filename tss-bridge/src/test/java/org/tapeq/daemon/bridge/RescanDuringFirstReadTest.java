package org.tapeq.daemon.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.tapeq.daemon.bridge.BridgeRig.awaitTrue;
import static org.tapeq.daemon.bridge.BridgeRig.status;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.protocol.AtomicFiles;
import org.tapeq.protocol.Request;
import org.tapeq.protocol.RequestCodec;
import org.tapeq.protocol.RequestDirectory;

/**
 * A rescan that comes due while the request files found at start are still being read (a restart with millions
 * queued) waits until they are, then runs once: it would list every queued name again and find nothing new.
 */
class RescanDuringFirstReadTest {

    private static final long RESCAN_MILLIS = 50;

    @TempDir
    Path tmp;

    private BridgeRig rig;

    @BeforeEach
    void start() throws Exception {
        rig = new BridgeRig(tmp);
    }

    @AfterEach
    void close() throws Exception {
        rig.close();
    }

    @Test
    void rescansDueDuringTheFirstRead_waitForItThenRunOnce() throws Exception {
        RequestDirectory dir = RequestDirectory.create(tmp.resolve("endit"));
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String id = String.format(Locale.ROOT, "0000%032X", i + 1);
            ids.add(id);
            AtomicFiles.write(dir.requestFile(id), RequestCodec.toBytes(Request.stage(100, 1, "atlas:raw",
                    "/pnfs/test/" + id, 1L, null, null, null)));
        }
        // A pool that takes the batches and reads them only when the test says so.
        List<Runnable> held = new ArrayList<>();
        ReadPool holding = (task, whenRoom) -> {
            synchronized (held) {
                held.add(task);
            }
            return true;
        };
        DirectoryBridge bridge = rig.bridge("rs", dir, holding, RESCAN_MILLIS);
        var ready = bridge.start();

        awaitTrue("the first listing's files wait to be read", () -> status(bridge).intakeBacklog() == ids.size());
        long seen = status(bridge).takenMillis();
        // Snapshots are published on the bridge's thread, after the rescans that came due before them.
        awaitTrue("a snapshot 20 rescan periods later", () -> status(bridge).takenMillis() >= seen + 20 * RESCAN_MILLIS);
        assertEquals(1, status(bridge).rescans(), "only the first listing while its files are read");
        assertFalse(ready.isDone());

        Thread reader = new Thread(() -> {
            synchronized (held) {
                held.forEach(Runnable::run);
            }
        });
        reader.start();
        reader.join();
        ready.get(60, TimeUnit.SECONDS);
        awaitTrue("a rescan after the first read", () -> status(bridge).rescans() >= 2);
        for (String id : ids) {
            awaitTrue("an answer for " + id, () -> Files.exists(dir.errorFile(id)));
        }
    }
}
