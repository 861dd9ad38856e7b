package org.tapeq.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import ch.qos.logback.classic.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JournalPriorityTest {

    @TempDir
    Path tmp;

    @Test
    void levels_mapToTheSyslogPrioritiesJournaldReads() {
        assertEquals("<3>", JournalPriority.prefix(Level.ERROR));
        assertEquals("<4>", JournalPriority.prefix(Level.WARN));
        assertEquals("<6>", JournalPriority.prefix(Level.INFO));
        assertEquals("<7>", JournalPriority.prefix(Level.DEBUG));
        assertEquals("<7>", JournalPriority.prefix(Level.TRACE));
    }

    @Test
    void prefix_onlyWhenJournalStreamNamesTheFileStderrIs() throws Exception {
        Path stderr = Files.createFile(tmp.resolve("stderr"));
        Path other = Files.createFile(tmp.resolve("other"));
        long dev = ((Number) Files.getAttribute(stderr, "unix:dev")).longValue();
        long ino = ((Number) Files.getAttribute(stderr, "unix:ino")).longValue();
        long otherIno = ((Number) Files.getAttribute(other, "unix:ino")).longValue();
        assertTrue(JournalPriority.stderrIsJournal(dev + ":" + ino, stderr));
        assertFalse(JournalPriority.stderrIsJournal(dev + ":" + otherIno, stderr), "stderr redirected elsewhere");
        assertFalse(JournalPriority.stderrIsJournal(null, stderr), "not under systemd");
        assertFalse(JournalPriority.stderrIsJournal("garbage", stderr));
        assertFalse(JournalPriority.stderrIsJournal("1:x", stderr));
    }
}
