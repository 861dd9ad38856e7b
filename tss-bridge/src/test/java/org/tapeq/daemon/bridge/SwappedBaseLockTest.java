package org.tapeq.daemon.bridge;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.protocol.RequestDirectory;

/**
 * The request directory's lock is on the directory the bridge holds open, not on whatever its path names when
 * the lock is taken: a base renamed and replaced between the two must not leave the served directory unlocked.
 */
class SwappedBaseLockTest {

    private static final long HOUR = 3_600_000;

    @TempDir
    Path tmp;

    @Test
    void start_baseReplacedAfterItWasHeld_lockIsOnTheHeldDirectory() throws Exception {
        Path real = tmp.resolve("endit.real");
        try (BridgeRig rig = new BridgeRig(tmp)) {
            RequestDirectory dir = RequestDirectory.create(tmp.resolve("endit"));
            DirectoryBridge bridge = rig.bridge("sw", dir, rig.pool(2, 16), HOUR); // holds the base open
            Files.move(dir.base(), real);
            RequestDirectory.create(tmp.resolve("endit")); // another directory put in its place

            bridge.start();

            IOException refused = assertThrows(IOException.class,
                    () -> ExclusiveLock.take(real.resolve(".tapeq-daemon.lock"), "request directory " + real),
                    "a second daemon could take the directory being served");
            assertTrue(refused.getMessage().contains("in use by another tapeq daemon"), refused.getMessage());
            assertFalse(Files.exists(tmp.resolve("endit").resolve(".tapeq-daemon.lock")),
                    "the lock was taken in the directory put in place of the served one");
        }
        assertFalse(Files.exists(real.resolve(".tapeq-daemon.lock")), "a clean stop leaves no lock file");
    }
}
