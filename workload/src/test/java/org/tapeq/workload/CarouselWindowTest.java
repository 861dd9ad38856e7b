package org.tapeq.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class CarouselWindowTest {

    @Test
    void slots_shareOfTheInputs_roundedUp_atLeastOne() {
        assertEquals(250, CarouselWindow.slots(2500, 10));
        assertEquals(167, CarouselWindow.slots(1665, 10), "a share of 166.5 inputs rounds up");
        assertEquals(1, CarouselWindow.slots(3, 10));
        assertEquals(1, CarouselWindow.slots(0, 10));
    }

    @Test
    void free_takenAndReleasedSlots_countedOnce() {
        CarouselWindow w = new CarouselWindow(40, 10, 600_000);
        assertEquals(4, w.free());
        w.taken(4);
        assertEquals(0, w.free());
        w.released();
        assertEquals(1, w.free());
    }

    @Test
    void holdMillis_stagedHoldsForTheProcessingTime_failedFreesAtOnce() {
        CarouselWindow w = new CarouselWindow(10, 50, 1_800_000);
        assertEquals(1_800_000, w.holdMillis(true));
        assertEquals(0, w.holdMillis(false));
    }

    @Test
    void minimumSpan_roundsOfTheWindowTimesTheProcessingTime() {
        CarouselWindow w = new CarouselWindow(1000, 10, 1000);
        assertEquals(9 * 1000, w.minimumSpanMillis(1000), "10 rounds of 100: the last starts after 9 processings");
        assertEquals(10 * 1000, w.minimumSpanMillis(1001));
    }

    @Test
    void window_outsideZeroToHundredPercent_refused() {
        assertThrows(IllegalArgumentException.class, () -> new CarouselWindow(10, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new CarouselWindow(10, 101, 0));
    }
}
