package org.tapeq.daemon.bridge;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.tapeq.daemon.bridge.BridgeRig.status;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.protocol.RequestDirectory;

/**
 * A directory that changes before its requests were first read is not served, and the daemon's start does not
 * wait for it: the bridge's start completes (the daemon waits on it), with the reason in its status.
 */
class StoppedBeforeReadyTest {

    @TempDir
    Path tmp;

    private BridgeRig rig;

    @AfterEach
    void close() {
        if (rig != null) {
            rig.close();
        }
    }

    @Test
    void requestDirReplacedBeforeTheFirstRead_startCompletes_andTheBridgeSaysWhy() throws Exception {
        rig = new BridgeRig(tmp);
        RequestDirectory dir = RequestDirectory.create(tmp.resolve("endit"));
        DirectoryBridge bridge = rig.bridge("early", dir, rig.pool(2, 16), 3_600_000);
        Path request = dir.base().resolve("request");
        Files.move(request, dir.base().resolve("request.real"));
        Files.createSymbolicLink(request, Files.createDirectory(tmp.resolve("outside")));

        bridge.start().get(30, TimeUnit.SECONDS); // timed out before: the first read never finished
        assertNotNull(status(bridge).stopped(), status(bridge).toString());
    }
}
