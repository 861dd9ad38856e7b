package org.tapeq.scheduler.engine.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The drive-time budget of background work over a contention episode. */
class ShareBudgetTest {

    private static final long HOLDOFF = 300_000;

    @Test
    void atAnEpisodesStart_backgroundWorkMayNeitherKeepNorTake() {
        ShareBudget b = new ShareBudget(0.5, HOLDOFF);
        b.advance(1_000, 2, 2);
        b.userWaiting(1_000);
        assertTrue(b.inEpisode(1_000));
        assertFalse(b.mayKeep(), "0 < 0.5 * 0 is false: every slice yields");
        assertFalse(b.mayTake());
    }

    @Test
    void userDriveTime_earnsTheShare_keepBeforeTake() {
        ShareBudget b = new ShareBudget(0.5, HOLDOFF);
        b.advance(0, 0, 4);
        b.userWaiting(0);
        b.advance(100_000, 0, 4); // 400 drive-s of user work: 200 drive-s of share, under the 300 s take margin
        b.userWaiting(100_000);
        assertTrue(b.mayKeep());
        assertFalse(b.mayTake());
        b.advance(200_000, 0, 4); // 800 drive-s: 400 of share
        b.userWaiting(200_000);
        assertTrue(b.mayTake());
        b.advance(300_000, 1, 3); // background took a drive: 100 drive-s against 1 100 of user work
        assertEquals(100_000, b.backgroundMillis());
        assertEquals(1_100_000, b.userMillis());
        assertTrue(b.mayKeep());
        assertTrue(b.mayTake(), "100 + 300 <= 0.5 * 1 100");
        b.userWaiting(300_000);
        b.advance(600_000, 3, 1); // 1 000 drive-s of background work against 1 400 of user work: over the share
        assertFalse(b.mayKeep());
    }

    @Test
    void anEpisode_endsAHoldoffAfterTheLastWait_andTheNextStartsFromZero() {
        ShareBudget b = new ShareBudget(0.5, HOLDOFF);
        b.userWaiting(0);
        b.advance(1_000_000, 1, 3); // counted only until the episode's end at 300 s
        assertEquals(300_000, b.backgroundMillis());
        assertEquals(900_000, b.userMillis());
        assertFalse(b.inEpisode(1_000_000));
        b.userWaiting(1_000_000);
        assertEquals(2, b.episodes());
        assertEquals(0, b.backgroundMillis());
        assertFalse(b.mayKeep());
    }
}
