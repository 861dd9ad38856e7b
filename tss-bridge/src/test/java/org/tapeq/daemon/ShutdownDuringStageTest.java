package org.tapeq.daemon;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.ClosedDirectoryStreamException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.tape.sim.SimulatedLibrary;

/**
 * A stop while a stage is being read: the request directories are let go only after the drives stopped, so no
 * late write finds them closed, and the stage is either answered or left for the next start, which answers it.
 */
class ShutdownDuringStageTest {

    @TempDir
    Path tmp;

    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private ch.qos.logback.classic.Logger root;
    private DaemonFixture f;

    @AfterEach
    void close() {
        if (root != null) {
            root.detachAppender(log);
        }
        if (f != null) {
            f.close();
        }
    }

    @Test
    void stop_whileAStageIsRead_noClosedDirectory_andTheStageIsAnsweredAfterTheRestart() throws Exception {
        f = new DaemonFixture(tmp, "");
        f.start();
        f.labelAll();
        byte[] content = DaemonFixture.randomBytes(4 << 20);
        String pnfsid = f.onTape(content);
        f.awaitSchedulerQuiet();
        SimulatedLibrary library = (SimulatedLibrary) f.daemon.library();
        for (String drive : List.of("drive0", "drive1")) {
            library.faults().slowDrive(drive, 1e-6); // the read stays in progress for seconds
        }
        root = ((LoggerContext) LoggerFactory.getILoggerFactory()).getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        log.start();
        root.addAppender(log);

        f.stage(pnfsid, content.length, DaemonFixture.adler32(content), true);
        DaemonFixture.await("a drive busy with the stage", () -> f.schedulerStatus().drives().stream()
                .anyMatch(d -> "busy".equals(d.state())));
        f.stop();

        List<String> closed = log.list.stream().filter(ShutdownDuringStageTest::closedDirectory)
                .map(ILoggingEvent::getFormattedMessage).toList();
        assertEquals(List.of(), closed, "a write after the request directory was let go");
        assertNull(f.error(pnfsid), "a stop is not a failure");
        assertTrue(Files.exists(f.dir.requestFile(pnfsid)), "the request stays for the next start");

        f.start();
        assertNull(f.awaitStage(pnfsid), "the stage is answered after the restart");
        assertArrayEquals(content, Files.readAllBytes(f.dir.inFile(pnfsid)));
        assertFalse(log.list.stream().anyMatch(ShutdownDuringStageTest::closedDirectory));
    }

    private static boolean closedDirectory(ILoggingEvent e) {
        if (e.getFormattedMessage().contains(ClosedDirectoryStreamException.class.getSimpleName())) {
            return true;
        }
        for (IThrowableProxy t = e.getThrowableProxy(); t != null; t = t.getCause()) {
            if (t.getClassName().equals(ClosedDirectoryStreamException.class.getName())) {
                return true;
            }
        }
        return false;
    }
}
