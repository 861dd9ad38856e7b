package org.tapeq.daemon.bridge;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExclusiveLockTest {

    @TempDir
    Path tmp;

    @Test
    void cleanClose_removesTheFile_andASecondTakerIsRefusedMeanwhile() throws Exception {
        Path file = tmp.resolve(".tapeq-daemon.lock");
        ExclusiveLock lock = ExclusiveLock.take(file, "request directory x");
        assertTrue(Files.readString(file).startsWith("pid " + ProcessHandle.current().pid() + " "));
        IOException e = assertThrows(IOException.class, () -> ExclusiveLock.take(file, "request directory x"));
        assertTrue(e.getMessage().contains("in use by another tapeq daemon"), e.getMessage());
        lock.close();
        assertFalse(Files.exists(file));
    }

    @Test
    void fileLeftByACrash_isTakenOver() throws Exception {
        Path file = Files.writeString(tmp.resolve(".tapeq-daemon.lock"), "pid 1 0123\n");
        ExclusiveLock lock = ExclusiveLock.take(file, "request directory x");
        assertTrue(Files.readString(file).startsWith("pid " + ProcessHandle.current().pid() + " "));
        lock.close();
    }

    @Test
    void aSymbolicLinkInItsPlace_isNotFollowed() throws Exception {
        Path target = tmp.resolve("elsewhere");
        Path file = Files.createSymbolicLink(tmp.resolve(".tapeq-daemon.lock"), target);
        assertThrows(IOException.class, () -> ExclusiveLock.take(file, "request directory x"));
        assertFalse(Files.exists(target), "nothing created where the link points");
    }
}
