package org.tapeq.mover;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

/**
 * {@link DriveTurns} on its own: one command per drive in order, a newer epoch stopping the older epoch's running
 * command and refusing its waiting ones, the new epoch's command starting only when the stopped one has ended,
 * and a running command counted as orphaned once nobody waits for its answer.
 */
class DriveTurnsTest {

    private final AtomicLong newest = new AtomicLong(1);
    private final DriveTurns turns = new DriveTurns("m1", newest::get);
    private final List<String> happened = new CopyOnWriteArrayList<>();

    private DriveTurns.Turn turn(String name, long epoch, AtomicBoolean gone) {
        return new DriveTurns.Turn("drive0", epoch, name, t -> happened.add("start " + name),
                () -> happened.add("cancel " + name), why -> happened.add("refuse " + name + ": " + why), gone::get);
    }

    @Test
    void aNewerEpochStopsTheOldCommandsAndItsOwnWaitsForTheStoppedOne() {
        DriveTurns.Turn write = turn("write", 1, new AtomicBoolean());
        DriveTurns.Turn locate = turn("locate", 1, new AtomicBoolean());
        turns.submit(write);
        turns.submit(locate);
        assertEquals(List.of("start write"), happened, "a second command started on a busy drive");
        assertEquals(1, turns.waiting("drive0"));

        newest.set(2);
        turns.fence(2);
        assertEquals("cancel write", happened.get(1));
        assertTrue(happened.get(2).startsWith("refuse locate: ") && happened.get(2).contains("(fenced)"),
                happened.toString());
        assertTrue(write.fenced() != null && write.fenced().contains("epoch 2 has taken the site over"));
        assertTrue(turns.orphanRunning("drive0"), "a fenced command nobody waits for is not reported");

        DriveTurns.Turn fresh = turn("unload", 2, new AtomicBoolean());
        turns.submit(fresh);
        assertEquals(3, happened.size(), "the new epoch's command started before the stopped one ended");
        turns.ended(write);
        assertEquals("start unload", happened.get(3));
        assertNull(fresh.fenced());
        assertFalse(turns.orphanRunning("drive0"));
    }

    @Test
    void aCommandOfAnOlderEpochSubmittedAfterTheRiseIsRefused() {
        newest.set(3);
        turns.submit(turn("mount", 2, new AtomicBoolean()));
        assertEquals(1, happened.size());
        assertTrue(happened.get(0).startsWith("refuse mount: "), happened.toString());
        assertFalse(turns.busy("drive0"));
    }

    @Test
    void aRunningCommandIsOrphanedOnceItsCallerHasGoneAndAWaitingOneIsDropped() {
        AtomicBoolean gone = new AtomicBoolean();
        DriveTurns.Turn mount = turn("mount", 1, gone);
        AtomicBoolean waiterGone = new AtomicBoolean();
        turns.submit(mount);
        turns.submit(turn("locate", 1, waiterGone));
        assertFalse(turns.orphanRunning("drive0"), "a command whose caller waits counted as orphaned");
        gone.set(true); // its deadline passed at the scheduler
        assertTrue(turns.orphanRunning("drive0"));
        waiterGone.set(true);
        turns.ended(mount);
        assertEquals(List.of("start mount"), happened, "a command whose caller had gone was started");
        assertFalse(turns.busy("drive0"));
    }
}
