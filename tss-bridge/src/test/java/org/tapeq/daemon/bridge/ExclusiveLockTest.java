package org.tapeq.daemon.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
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
        assertEquals("pid " + ProcessHandle.current().pid() + "\n", Files.readString(file));
        IOException e = assertThrows(IOException.class, () -> ExclusiveLock.take(file, "request directory x"));
        assertTrue(e.getMessage().contains("in use by another tapeq daemon"), e.getMessage());
        lock.close();
        assertFalse(Files.exists(file));
    }

    /**
     * Another process must be refused while this one holds the lock. The kernel's record locks are per process and
     * dropped when the process closes any descriptor of the file, which a single JVM cannot see (the JDK's own
     * table refuses a second taker in the same JVM): so the second taker is a separate JVM.
     */
    @Test
    void anotherProcess_isRefusedWhileHeld_andTakesItOnceReleased() throws Exception {
        Path file = tmp.resolve(".tapeq-daemon.lock");
        ExclusiveLock lock = ExclusiveLock.take(file, "request directory x");
        try {
            String answer = takeInAnotherProcess(file);
            assertTrue(answer.startsWith("refused: request directory x is in use by another tapeq daemon"), answer);
        } finally {
            lock.close();
        }
        assertEquals("taken", takeInAnotherProcess(file));
    }

    private static String takeInAnotherProcess(Path file) throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(List.of(java.toString(), "-cp", System.getProperty("java.class.path"),
                OtherProcess.class.getName(), file.toString())).redirectErrorStream(true).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the other process did not end");
        return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    }

    /** The second taker: prints {@code taken} or {@code refused: <message>}. */
    public static final class OtherProcess {
        public static void main(String[] args) {
            try {
                ExclusiveLock.take(Path.of(args[0]), "request directory x").close();
                System.out.println("taken");
            } catch (IOException e) {
                System.out.println("refused: " + e.getMessage());
            }
        }
    }

    @Test
    void fileLeftByACrash_isTakenOver() throws Exception {
        Path file = Files.writeString(tmp.resolve(".tapeq-daemon.lock"), "pid 1 0123\n");
        ExclusiveLock lock = ExclusiveLock.take(file, "request directory x");
        assertEquals("pid " + ProcessHandle.current().pid() + "\n", Files.readString(file));
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
