package org.tapeq.scheduler.engine.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

/** {@link TapeFileRuns}: the run count kept in O(1) per change equals a count from scratch after every change. */
class TapeFileRunsTest {

    private static long countFromScratch(TreeMap<Integer, Integer> counts) {
        long runs = 0;
        Integer previous = null;
        for (int tf : counts.keySet()) {
            if (previous == null || tf > previous + 1) {
                runs++;
            }
            previous = tf;
        }
        return runs;
    }

    @Test
    void runs_randomAddsAndRemoves_equalCountFromScratch() {
        Random random = new Random(17);
        for (int round = 0; round < 20; round++) {
            TapeFileRuns runs = new TapeFileRuns();
            TreeMap<Integer, Integer> counts = new TreeMap<>();
            List<Integer> added = new ArrayList<>();
            int range = 10 + random.nextInt(3000);
            for (int step = 0; step < 5000; step++) {
                if (added.isEmpty() || random.nextInt(100) < 55) {
                    int tf = random.nextInt(range);
                    runs.add(tf);
                    counts.merge(tf, 1, Integer::sum);
                    added.add(tf);
                } else {
                    int tf = added.remove(random.nextInt(added.size()));
                    runs.remove(tf);
                    counts.merge(tf, -1, (a, b) -> a + b == 0 ? null : a + b);
                }
                assertEquals(countFromScratch(counts), runs.runs(), "round " + round + " step " + step);
            }
            while (!added.isEmpty()) {
                runs.remove(added.remove(added.size() - 1));
            }
            assertEquals(0, runs.runs());
        }
    }

    @Test
    void runs_removingTheMiddleOfARun_splitsIt() {
        TapeFileRuns runs = new TapeFileRuns();
        for (int tf = 0; tf < 5; tf++) {
            runs.add(tf);
        }
        assertEquals(1, runs.runs());
        runs.remove(2);
        assertEquals(2, runs.runs());
        runs.add(2);
        assertEquals(1, runs.runs());
    }

    @Test
    void remove_neverAdded_refused() {
        TapeFileRuns runs = new TapeFileRuns();
        runs.add(7);
        assertThrows(IllegalStateException.class, () -> runs.remove(8));
    }
}
