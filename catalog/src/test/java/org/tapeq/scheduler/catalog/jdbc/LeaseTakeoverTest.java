package org.tapeq.scheduler.catalog.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.catalog.CatalogLeaseException;

/**
 * A live lease of this host is taken over before it lapses only when its holder is known dead: the holder's
 * recorded identity (boot, pid namespace, pid, start time) names no running process here. A pid alone is not
 * trusted: from another pid namespace (a container) it may name a live process, another one, or none.
 */
class LeaseTakeoverTest {

    private static final long TTL = 30_000;
    private static final String HOST = "this-host";

    @TempDir
    Path dir;

    private String url;
    private JdbcCatalog first;

    @BeforeEach
    void open() {
        url = "jdbc:sqlite:" + dir.resolve("catalog.db");
        first = JdbcCatalog.open(url);
    }

    @AfterEach
    void close() {
        first.close();
    }

    @Test
    void acquireLease_holderPidReusedByAnotherProcess_isTakenAtOnce() throws Exception {
        ProcessIdentity me = ProcessIdentity.current().orElseThrow();
        // The holder's pid now names this test's JVM, started at another time than the holder recorded.
        ProcessIdentity reused = new ProcessIdentity(me.bootId(), me.pidNamespace(), me.pid(), me.startTicks() + 1);
        first.acquireLease("gridka", reused.holder("a"), HOST, reused.pid(), 1_000, TTL);
        try (JdbcCatalog second = JdbcCatalog.open(url)) {
            assertEquals(2, second.acquireLease("gridka", "b", HOST, 77, 2_000, TTL).epoch());
        }
    }

    @Test
    void acquireLease_holderInAnotherPidNamespace_isWaitedOut() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor(); // its pid names nothing here; in the holder's namespace it may be alive
        ProcessIdentity me = ProcessIdentity.current().orElseThrow();
        ProcessIdentity elsewhere = new ProcessIdentity(me.bootId(), "pid:[1]", gone.pid(), 12345);
        first.acquireLease("gridka", elsewhere.holder("a"), HOST, gone.pid(), 1_000, TTL);
        try (JdbcCatalog second = JdbcCatalog.open(url)) {
            CatalogLeaseException e = assertThrows(CatalogLeaseException.class,
                    () -> second.acquireLease("gridka", "b", HOST, 77, 2_000, TTL));
            assertTrue(e.getMessage().contains("in use by another tapeq"), e.getMessage());
            assertEquals(2, second.acquireLease("gridka", "b", HOST, 77, 1_000 + TTL + 1, TTL).epoch(),
                    "taken once it lapsed");
        }
    }

    @Test
    void acquireLease_holderWithABarePid_isWaitedOut() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        first.acquireLease("gridka", "a", HOST, gone.pid(), 1_000, TTL);
        try (JdbcCatalog second = JdbcCatalog.open(url)) {
            assertThrows(CatalogLeaseException.class, () -> second.acquireLease("gridka", "b", HOST, 77, 2_000, TTL));
        }
    }

    @Test
    void acquireLease_holderAliveAsRecorded_isRefused() {
        ProcessIdentity me = ProcessIdentity.current().orElseThrow();
        first.acquireLease("gridka", me.holder("a"), HOST, me.pid(), 1_000, TTL);
        try (JdbcCatalog second = JdbcCatalog.open(url)) {
            assertThrows(CatalogLeaseException.class, () -> second.acquireLease("gridka", "b", HOST, 77, 2_000, TTL));
        }
    }

    @Test
    void acquireLease_procFilteredAndHolderPidMissing_isRefused() throws Exception {
        // /proc as systemd's ProtectProc=invisible shows it: this process, but not pid 1 nor the holder (root's).
        Path proc = Files.createDirectories(dir.resolve("proc"));
        Files.createDirectories(proc.resolve("sys/kernel/random"));
        Files.writeString(proc.resolve("sys/kernel/random/boot_id"), "0b0b-1\n");
        Files.createDirectories(proc.resolve("self/ns"));
        Files.createSymbolicLink(proc.resolve("self/ns/pid"), Path.of("pid:[4026531836]"));
        ProcessIdentity holder = new ProcessIdentity("0b0b-1", "pid:[4026531836]", 4242, 100);
        first.acquireLease("gridka", holder.holder("root-daemon"), HOST, holder.pid(), 1_000, TTL);
        try (JdbcCatalog second = JdbcCatalog.open(url)) {
            second.procRoot(proc);
            assertThrows(CatalogLeaseException.class, () -> second.acquireLease("gridka", "b", HOST, 77, 2_000, TTL));
            // With pid 1 visible, /proc is unfiltered: the holder's missing pid means it is gone.
            Files.createDirectories(proc.resolve("1"));
            Files.writeString(proc.resolve("1/stat"), "1 (systemd) S 0 1 1 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 7 0");
            assertEquals(2, second.acquireLease("gridka", "b", HOST, 77, 2_000, TTL).epoch());
        }
    }

    @Test
    void holder_roundTrip_keepsTheIdentity() {
        ProcessIdentity me = ProcessIdentity.current().orElseThrow();
        assertEquals(me, ProcessIdentity.inHolder(me.holder("0f1e-uuid")).orElseThrow());
        assertFalse(ProcessIdentity.inHolder("0f1e-uuid").isPresent());
        assertFalse(ProcessIdentity.knownDead(me.holder("x")), "this very process");
    }
}
