package org.tapeq.scheduler.tape.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.model.MediaType;

class PhysicsProfileTest {

    private static final MediaType LTO9 = MediaType.LTO9;

    private static PhysicsProfile with(double fixedScale, double jitter, double offset, long landingZone) {
        PhysicsProfile n = PhysicsProfile.NOMINAL;
        return new PhysicsProfile("test", n.settleMillis(), n.headStepMillis(), n.bandChangeMillis(),
                n.reversalMillis(), n.backHitchMillis(), landingZone, n.rewindSettleMillis(), fixedScale, 0, 0, jitter,
                offset);
    }

    @Test
    void capacityOffset_makesEveryWrapHoldMoreThanNominal() {
        TrueWrapMap g = TapePhysics.of(LTO9, with(1, 0.02, 0.03, 0)).geometry("A00001L9", LTO9.capacityBytes(), 1);
        long sum = 0;
        for (int w = 0; w < g.wraps(); w++) {
            sum += g.wrapCapacity(w);
        }
        assertEquals(Math.round(LTO9.capacityBytes() * 1.03), sum);
        assertEquals(sum, g.capacity());
        // the scheduler's estimate puts nominal bytes on each wrap, so by the middle of the tape it is wraps off
        long middle = LTO9.capacityBytes() / 2;
        int trueWrap = g.wrapOf(middle);
        int nominalWrap = (int) (middle / LTO9.bytesPerWrap());
        assertTrue(nominalWrap - trueWrap >= 2, nominalWrap + " vs " + trueWrap);
    }

    @Test
    void wrapJitter_widensTheDeviationOfSingleWraps() {
        TrueWrapMap g = TapePhysics.of(LTO9, with(1, 0.10, 0, 0)).geometry("A00001L9", LTO9.capacityBytes(), 1);
        double worst = 0;
        for (int w = 0; w < g.wraps(); w++) {
            worst = Math.max(worst, Math.abs(g.wrapCapacity(w) - LTO9.bytesPerWrap()) / (double) LTO9.bytesPerWrap());
        }
        assertTrue(worst > 0.05 && worst <= 0.125, "largest deviation " + worst);
    }

    @Test
    void fixedScale_slowsEveryLocateButNotTheTravel() {
        TapePhysics nominal = TapePhysics.of(LTO9);
        TapePhysics slow = TapePhysics.of(LTO9, with(1.3, 0.02, 0, 0));
        Head from = new Head(5_000_000, 8, 500);
        Head to = new Head(650_000_000_000L, 11, 200);
        long n = nominal.locateMillis(from, to, LTO9.rateBytesPerSecond());
        long s = slow.locateMillis(from, to, LTO9.rateBytesPerSecond());
        long fixed = 2_500 + 3_500 + 2_500; // settle, head step, reversal (8 -> 11, one band)
        assertEquals(n + Math.round(0.3 * fixed), s, 2);
        assertEquals(nominal.fullLocatePassMillis(), slow.fullLocatePassMillis(), 1e-9);
    }

    @Test
    void landingZone_makesAMoveAcrossMidTapeCheaperButNeverBelowTheSettle() {
        TapePhysics lz = TapePhysics.of(LTO9, with(1, 0.02, 0, 6_040));
        TapePhysics nominal = TapePhysics.of(LTO9);
        double rate = LTO9.rateBytesPerSecond();
        Head from = new Head(5_000_000, 8, 100);
        Head across = new Head(650_000_000_000L, 12, 900);
        assertEquals(nominal.locateMillis(from, across, rate) - 6_040, lz.locateMillis(from, across, rate), 1);
        Head a = new Head(1_000_000, 0, 517);
        Head b = new Head(2_000_000, 0, 518);
        assertTrue(lz.locateMillis(a, b, Double.MIN_VALUE) >= 2_500);
    }

    @Test
    void unload_locatesToTheStartWhenThatBeatsARewind() {
        TapePhysics p = TapePhysics.of(LTO9);
        TrueWrapMap g = p.geometry("A00001L9", LTO9.capacityBytes(), 1);
        Head start = p.headAt(g, 0);
        Head farOut = p.headAt(g, g.wrapStart(2) - 1_000_000); // wrap 1, near BOT: a short rewind
        Head nearEot = p.headAt(g, g.wrapStart(1) - 1_000_000); // wrap 0, near EOT
        assertEquals(p.rewindMillis(farOut), p.unloadRewindMillis(farOut, start));
        long viaStart = p.locateMillis(nearEot, start, LTO9.rateBytesPerSecond()) + p.rewindMillis(start);
        assertTrue(viaStart < p.rewindMillis(nearEot), "nominal rewind is slower than a locate: " + viaStart);
        assertEquals(viaStart, p.unloadRewindMillis(nearEot, start));
    }

    @Test
    void badProfiles_areRefusedWithTheirName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> with(1, 0.7, 0, 0));
        assertTrue(e.getMessage().contains("test") && e.getMessage().contains("wrapJitter"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> with(0, 0.02, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> with(1, 0.02, 0.6, 0));
    }
}
