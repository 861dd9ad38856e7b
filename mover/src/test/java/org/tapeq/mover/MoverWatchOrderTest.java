package org.tapeq.mover;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;
import org.tapeq.testing.support.Poll;

/**
 * {@link MoverWatch} tells a loss and a return in the order they happened, even when a failed command and an
 * answered probe race on two threads; a late outcome of a return attempt that a loss voided counts for nothing;
 * and a listener set late hears of the movers lost before.
 */
class MoverWatchOrderTest {

    private static final MoverEndpoint M1 = new MoverEndpoint("m1", "127.0.0.1", 1, List.of("drive0", "drive1"));

    /** Records "unreachable"/"reachable" when each call ends; "unreachable" waits for {@link #release}. */
    private static final class Slow implements MoverEvents {
        final List<String> told = new CopyOnWriteArrayList<>();
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        public void unreachable(String mover, List<String> drives, String reason) {
            entered.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            told.add("unreachable");
        }

        @Override
        public void reachable(String mover, List<String> drives,
                                  java.util.Map<String, java.util.Optional<String>> holding) {
            told.add("reachable");
        }
    }

    @Test
    void aReturnRacingALossIsToldAfterIt() throws Exception {
        try (MoverClient m = new MoverClient(M1, "s", SiteIdentity.of("gridka"), Runnable::run);
                MoverWatch watch = new MoverWatch(List.of(m), () -> 1, 60_000, 1_000)) {
            Slow events = new Slow();
            watch.events(events);
            Thread failing = new Thread(() -> watch.lost(m, "UNAVAILABLE"), "failed-command");
            failing.start();
            events.entered.await();
            Thread probe = new Thread(() -> watch.found(m), "answered-probe");
            probe.start();
            // before the fix the probe told "reachable" at once; now it waits for the loss to be told
            Poll.until("the probe waits or has told", () -> probe.getState() == Thread.State.BLOCKED
                    || !events.told.isEmpty());
            events.release.countDown();
            failing.join();
            probe.join();
            assertEquals(List.of("unreachable", "reachable"), events.told, "m1 answers, its drives must be in service");
        }
    }

    @Test
    void aLateOutcomeOfAReturnAttemptVoidedByALossCountsForNothing() {
        try (MoverClient m = new MoverClient(M1, "s", SiteIdentity.of("gridka"), Runnable::run);
                MoverWatch watch = new MoverWatch(List.of(m), () -> 1, 60_000, 1_000)) {
            List<Long> attempts = new CopyOnWriteArrayList<>();
            watch.reconcile((mover, attempt) -> attempts.add(attempt)); // answered below, as the test says
            List<String> told = new CopyOnWriteArrayList<>();
            watch.events(new MoverEvents() {
                @Override
                public void unreachable(String mover, List<String> drives, String reason) {
                    told.add("unreachable");
                }

                @Override
                public void reachable(String mover, List<String> drives,
                                      java.util.Map<String, java.util.Optional<String>> holding) {
                    told.add("reachable " + holding);
                }
            });
            watch.lost(m, "UNAVAILABLE: connection refused");
            watch.found(m); // the first attempt asks what the drives hold ...
            watch.lost(m, "UNAVAILABLE: connection reset"); // ... and is voided by a loss
            watch.found(m); // a second attempt asks again
            assertEquals(2, attempts.size(), attempts.toString());

            // the first attempt's late failure must not cancel the second, nor its late success put m1 back
            watch.notBack(m, attempts.get(0), "asking what its drives hold failed: late");
            watch.back(m, attempts.get(0), java.util.Map.of("drive0", java.util.Optional.of("OLD001")));
            assertEquals(2, told.stream().filter("unreachable"::equals).count(), told.toString());
            assertEquals(2, told.size(), "a void attempt's outcome was taken: " + told);
            assertTrue(watch.isLost("m1"));

            watch.back(m, attempts.get(1), java.util.Map.of("drive0", java.util.Optional.of("NEW001")));
            assertEquals("reachable {drive0=Optional[NEW001]}", told.get(told.size() - 1), told.toString());
            assertFalse(watch.isLost("m1"));
        }
    }

    @Test
    void aListenerSetLateHearsOfMoversLostBefore() {
        try (MoverClient m = new MoverClient(M1, "s", SiteIdentity.of("gridka"), Runnable::run);
                MoverWatch watch = new MoverWatch(List.of(m), () -> 1, 60_000, 1_000)) {
            watch.lost(m, "UNAVAILABLE: connection refused");
            List<String> told = new CopyOnWriteArrayList<>();
            watch.events(new MoverEvents() {
                @Override
                public void unreachable(String mover, List<String> drives, String reason) {
                    told.add(mover + " " + drives + " " + reason.startsWith("mover m1 unreachable since "));
                }

                @Override
                public void reachable(String mover, List<String> drives,
                                  java.util.Map<String, java.util.Optional<String>> holding) {
                    told.add(mover + " reachable");
                }
            });
            assertEquals(List.of("m1 [drive0, drive1] true"), told);
            watch.found(m);
            assertEquals(List.of("m1 [drive0, drive1] true", "m1 reachable"), told);
        }
    }
}
