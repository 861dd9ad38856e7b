package org.tapeq.mover;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;
import org.tapeq.testing.support.Poll;

/**
 * {@link MoverWatch} tells a loss and a return in the order they happened, even when a failed command and an
 * answered probe race on two threads; and a listener set late hears of the movers lost before.
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
