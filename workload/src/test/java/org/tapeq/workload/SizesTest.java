package org.tapeq.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

class SizesTest {

    private static final long GB = 1_000_000_000L;

    @Test
    void uniform_inWholeGigabytes_drawsWhatGbTimesTheUnitDrawGives() {
        SplittableRandom a = new SplittableRandom(3);
        SplittableRandom b = new SplittableRandom(3);
        Sizes u = new Sizes.Uniform(2 * GB, 5 * GB);
        for (int i = 0; i < 1000; i++) {
            assertEquals((long) (GB * (2 + 3 * b.nextDouble())), u.draw(a));
        }
    }

    @Test
    void logUniform_staysWithinBounds_andSpreadsOverDecades() {
        SplittableRandom r = new SplittableRandom(1);
        Sizes s = new Sizes.LogUniform(10_000, 100_000_000);
        int belowOneMb = 0;
        for (int i = 0; i < 10_000; i++) {
            long size = s.draw(r);
            assertTrue(size >= 10_000 && size < 100_000_000, "size " + size);
            belowOneMb += size < 1_000_000 ? 1 : 0;
        }
        assertEquals(0.5, belowOneMb / 10_000.0, 0.03, "half the files below the middle decade");
    }

    @Test
    void fixed_drawsNoRandomNumber_andEitherPicksByACoin() {
        SplittableRandom r = new SplittableRandom(9);
        SplittableRandom same = new SplittableRandom(9);
        assertEquals(100_000_000, new Sizes.Fixed(100_000_000).draw(r));
        Sizes either = new Sizes.Either(new Sizes.Fixed(1), new Sizes.Fixed(2));
        for (int i = 0; i < 100; i++) {
            assertEquals(same.nextBoolean() ? 1 : 2, either.draw(r), "the generator was not touched by Fixed");
        }
        assertThrows(IllegalArgumentException.class, () -> new Sizes.Fixed(0));
        assertThrows(IllegalArgumentException.class, () -> new Sizes.Uniform(5, 2));
    }
}
