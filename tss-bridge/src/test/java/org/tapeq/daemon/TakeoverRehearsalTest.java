package org.tapeq.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.catalog.SiteLease;
import org.tapeq.scheduler.catalog.jdbc.JdbcCatalog;

import ch.qos.logback.classic.Level;

/**
 * A standby rehearses a takeover once, when it first finds the site held, and never when it takes a free site at
 * once; the rehearsal queues its requests with a private daemon and leaves nothing behind.
 */
class TakeoverRehearsalTest {

    private static final long TTL = 30_000;

    @TempDir
    Path dir;

    @Test
    void aStandbyRehearsesOnceWhenItFindsTheSiteHeld_andNotWhenItTakesAFreeSite() throws Exception {
        String url = "jdbc:sqlite:" + dir.resolve("catalog.db");
        AtomicLong clock = new AtomicLong(1_000);
        try (JdbcCatalog active = JdbcCatalog.open(url); JdbcCatalog other = JdbcCatalog.open(url);
             JdbcCatalog third = JdbcCatalog.open("jdbc:sqlite:" + dir.resolve("other-site.db"))) {
            List<String> events = new ArrayList<>();
            Standby.Rehearsal recorded = new Standby.Rehearsal() {
                @Override
                public void start() {
                    events.add("start at " + clock.get());
                }

                @Override
                public void stopAndWait() {
                    events.add("stop at " + clock.get());
                }
            };
            Standby free = new Standby("cern", 5_000, clock::addAndGet, recorded);
            free.takeLease(() -> third.acquireLease("cern", "c", "tape-c", 78, clock.get(), TTL),
                    () -> third.leaseKeepingOut("cern", "c", "tape-c", clock.get()));
            assertTrue(events.stream().noneMatch(e -> e.startsWith("start")), "took a free site at once: " + events);
            events.clear();

            active.acquireLease("gridka", "a", "tape-a", 4242, clock.get(), TTL);
            Standby standby = new Standby("gridka", 5_000, millis -> {
                clock.addAndGet(millis);
                if (clock.get() < 40_000) {
                    active.renewLease(clock.get());
                }
            }, recorded);
            SiteLease taken = standby.takeLease(
                    () -> other.acquireLease("gridka", "b", "tape-b", 77, clock.get(), TTL),
                    () -> other.leaseKeepingOut("gridka", "b", "tape-b", clock.get()));
            assertEquals("b", taken.holder());
            assertTrue(standby.polls() > 5, "waited over several polls: " + standby.polls());
            assertEquals("start at 1000", events.get(0), "started once, when the site was first found held");
            assertEquals(1, events.stream().filter(e -> e.startsWith("start")).count(), events.toString());
            assertTrue(events.get(1).startsWith("stop at ") && Long.parseLong(events.get(1).substring(8)) >= 40_000,
                    "stopped once the lease could be taken, before the takeover: " + events);
        }
    }

    @Test
    void theRehearsalQueuesItsRequestsWithAPrivateDaemon_thenLeavesNothingBehind() throws Exception {
        ch.qos.logback.classic.Logger tapeq = (ch.qos.logback.classic.Logger) LoggerFactory.getLogger("org.tapeq");
        Level before = tapeq.getLevel();

        String said = TakeoverRehearsal.run(3_000, dir);

        assertTrue(said.startsWith("rehearsed a takeover of 3,000 queued stage requests in "), said);
        try (Stream<Path> left = Files.list(dir)) {
            assertEquals(List.of(), left.toList(), "the rehearsal's directory is removed");
        }
        assertEquals(before, tapeq.getLevel(), "the log level is restored");
    }

    @Test
    void aRehearsalStoppedWhileItsPrivateDaemonServes_closesItInFull_andLeavesNothingBehind() throws Exception {
        TakeoverRehearsal r = new TakeoverRehearsal(20_000, dir);
        r.start();
        long deadline = System.currentTimeMillis() + 120_000;
        while (!threadAlive("tapeq-rehearsal-bridge")) { // its private daemon serves the scratch directory
            assertTrue(System.currentTimeMillis() < deadline, "the rehearsal's daemon never started");
            Thread.sleep(5);
        }
        r.stopAndWait();
        assertFalse(threadAlive("tapeq-rehearsal-bridge"), "the private daemon's threads have ended");
        assertFalse(threadAlive("tapeq-takeover-rehearsal"));
        try (Stream<Path> left = Files.list(dir)) {
            assertEquals(List.of(), left.toList(), "the rehearsal's directory is removed");
        }
    }

    private static boolean threadAlive(String name) {
        return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals(name) && t.isAlive());
    }

    @Test
    void theDaemonsRehearsal_runsBelowTheTemporaryDirectory_whateverTheStatePathsLength() throws Exception {
        // A deep state directory left too little of a Unix socket path's 108 bytes for the private daemon's socket.
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        List<Path> before = rehearsalDirectories(tmp);

        String said = TakeoverRehearsal.run(1_000, null);

        assertTrue(said.startsWith("rehearsed a takeover of 1,000 queued stage requests in "), said);
        assertEquals(before, rehearsalDirectories(tmp), "its directory is removed");
    }

    private static List<Path> rehearsalDirectories(Path tmp) throws Exception {
        try (Stream<Path> s = Files.list(tmp)) {
            return s.filter(p -> p.getFileName().toString().startsWith("tapeq-rehearsal-")).sorted().toList();
        }
    }

    @Test
    void aRehearsalThatCannotRun_saysWhy_andTheStandbyGoesOn() throws Exception {
        Path notADirectory = Files.writeString(dir.resolve("file"), "x");

        String said = TakeoverRehearsal.run(10, notADirectory);

        assertTrue(said.startsWith("the takeover rehearsal failed") && said.endsWith("waiting without it"), said);
        assertEquals(Optional.of("x"), Optional.of(Files.readString(notADirectory)));
    }
}
