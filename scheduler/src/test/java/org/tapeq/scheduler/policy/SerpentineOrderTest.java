package org.tapeq.scheduler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.tapeq.scheduler.model.MediaType;

/**
 * SerpentineOrder against the other orders on seeded LTO-9 queues. Costs are estimated locate seconds (reads are
 * the same for every order). Each test prints one row per queue: every order's cost relative to file-sequence,
 * and a lower bound (each span reached by its cheapest possible incoming move), so that gains can be judged
 * against what is possible at all.
 */
class SerpentineOrderTest {

    private static final EstimatedGeometry LTO9 = new EstimatedGeometry(MediaType.LTO9, SpanQueues.BLOCK_SIZE);
    private static final long MID_TAPE = SpanQueuesHeads.midTape(LTO9);
    private static final double SLACK = 1e-6;

    /** Estimated locate seconds of every registered order on one queue. */
    private static Map<String, Double> costs(SpanQueues q, long head) {
        Map<String, Double> costs = new LinkedHashMap<>();
        for (String name : ReadOrders.names()) {
            int[] order = ReadOrders.create(name).order(head, q.starts, q.ends, LTO9);
            ReadOrderTest.assertPermutation(q.size(), order);
            costs.put(name, ReadOrder.estimateLocateSeconds(order, head, q.starts, q.ends, LTO9));
        }
        return costs;
    }

    /** Sum over spans of the cheapest move into each from the head or from any other span's end: O(n^2). */
    private static double lowerBound(SpanQueues q, long head) {
        SpanTable t = new SpanTable(head, q.starts, q.ends, LTO9);
        double sum = 0;
        for (int j = 0; j < t.n; j++) {
            double best = t.edge(-1, j);
            for (int i = 0; i < t.n; i++) {
                if (i != j) {
                    best = Math.min(best, t.edge(i, j));
                }
            }
            sum += best;
        }
        return sum;
    }

    private static void print(String label, Map<String, Double> costs, double lowerBound) {
        double fileSequence = costs.get(ReadOrders.FILE_SEQUENCE);
        StringBuilder row = new StringBuilder(String.format("%-34s file-sequence %9.0f s |", label, fileSequence));
        costs.forEach((name, c) -> row.append(String.format(" %s %.3f", name, c / fileSequence)));
        if (lowerBound >= 0) {
            row.append(String.format(" | bound %.3f", lowerBound / fileSequence));
        }
        System.out.println(row);
    }

    private static void assertCheapest(String label, Map<String, Double> costs) {
        double serpentine = costs.get(ReadOrders.SERPENTINE);
        costs.forEach((name, c) -> assertTrue(serpentine <= c + SLACK,
                label + ": serpentine " + serpentine + " s > " + name + " " + c + " s"));
    }

    @ParameterizedTest(name = "n={0}")
    @CsvSource({"10", "100", "1000"})
    void order_uniformQueues_isNeverWorseThanAnyOtherOrder(int n) {
        assertUniformQueuesNeverWorse(n);
    }

    /** The same with ten thousand spans: seconds of CPU, so left out of the fast loop. */
    @Test
    @Tag("slow")
    void order_tenThousandUniformSpans_isNeverWorseThanAnyOtherOrder() {
        assertUniformQueuesNeverWorse(10_000);
    }

    private static void assertUniformQueuesNeverWorse(int n) {
        for (long seed = 1; seed <= 3; seed++) {
            SpanQueues q = SpanQueues.uniform(LTO9, n, seed);
            Map<String, Double> costs = costs(q, 0);
            String label = "uniform n=" + n + " seed=" + seed;
            print(label, costs, n <= 2000 ? lowerBound(q, 0) : -1);
            assertCheapest(label, costs);
        }
    }

    @Test
    void order_thousandUniformSpans_saves40PercentOfFileSequenceLocateTime() {
        for (long seed = 1; seed <= 5; seed++) {
            SpanQueues q = SpanQueues.uniform(LTO9, 1000, seed);
            Map<String, Double> costs = costs(q, 0);
            print("uniform n=1000 seed=" + seed, costs, lowerBound(q, 0));
            double ratio = costs.get(ReadOrders.SERPENTINE) / costs.get(ReadOrders.FILE_SEQUENCE);
            assertTrue(ratio <= 0.60, "seed " + seed + ": serpentine/file-sequence " + ratio);
        }
    }

    /**
     * Why the 40 % target cannot hold for denser queues under this cost model: once there are several spans per
     * wrap, file-sequence order reads through short gaps and pays about one locate constant per span, and even the
     * (optimistic) lower bound leaves less than 40 % to gain. Serpentine still never loses.
     */
    @ParameterizedTest(name = "n={0}")
    @CsvSource({"2000", "5000"})
    void lowerBound_denserUniformQueues_leavesLessThan40PercentToGain(int n) {
        for (long seed = 1; seed <= 2; seed++) {
            SpanQueues q = SpanQueues.uniform(LTO9, n, seed);
            Map<String, Double> costs = costs(q, 0);
            double bound = lowerBound(q, 0);
            print("uniform n=" + n + " seed=" + seed, costs, bound);
            assertTrue(bound / costs.get(ReadOrders.FILE_SEQUENCE) > 0.6, "bound " + bound);
            assertCheapest("n=" + n, costs);
        }
    }

    @ParameterizedTest(name = "n={0} spread={1} wraps")
    @CsvSource({"100, 0.5", "100, 3", "100, 10", "1000, 0.5", "1000, 3", "1000, 10", "5000, 3"})
    void order_clusteredQueues_beatsFileSequenceAndBatched(int n, double spreadWraps) {
        double logRatio = 0;
        int runs = 0;
        for (long seed = 1; seed <= 3; seed++) {
            for (long head : new long[] {0, MID_TAPE}) {
                SpanQueues q = SpanQueues.clustered(LTO9, n, 4, spreadWraps, seed);
                Map<String, Double> costs = costs(q, head);
                String label = "clustered n=" + n + " spread=" + spreadWraps + " seed=" + seed
                        + (head == 0 ? "" : " mid");
                print(label, costs, n <= 1000 ? lowerBound(q, head) : -1);
                assertCheapest(label, costs);
                logRatio += Math.log(costs.get(ReadOrders.SERPENTINE) / costs.get(ReadOrders.FILE_SEQUENCE));
                runs++;
            }
        }
        double geometricMean = Math.exp(logRatio / runs);
        assertTrue(geometricMean <= 0.97, "serpentine/file-sequence geometric mean " + geometricMean);
    }

    @ParameterizedTest(name = "n={0}")
    @CsvSource({"100", "1000"})
    void order_headMidTape_staysCheapestAndKeepsItsGain(int n) {
        assertEquals(0.5, LTO9.lpos(MID_TAPE), 1e-6);
        for (long seed = 1; seed <= 3; seed++) {
            SpanQueues q = SpanQueues.uniform(LTO9, n, seed);
            Map<String, Double> costs = costs(q, MID_TAPE);
            print("uniform n=" + n + " seed=" + seed + " head mid-tape", costs, lowerBound(q, MID_TAPE));
            assertCheapest("mid-tape", costs);
            assertTrue(costs.get(ReadOrders.SERPENTINE) <= 0.6 * costs.get(ReadOrders.FILE_SEQUENCE));
        }
    }

    @Test
    void order_headMidTapeWithSpanJustAhead_readsThatSpanFirst() {
        double perWrap = LTO9.blocksPerWrap();
        long head = MID_TAPE; // wrap 141 runs back: "ahead" is towards BOT, i.e. higher block addresses
        long[] starts = {(long) (2.1 * perWrap), (long) (141.55 * perWrap), (long) (0.1 * perWrap),
                (long) (200.3 * perWrap)};
        long[] ends = new long[starts.length];
        for (int i = 0; i < starts.length; i++) {
            ends[i] = starts[i] + 4000;
        }
        int[] order = new SerpentineOrder().order(head, starts, ends, LTO9);
        assertEquals(1, order[0], "the span a few GB ahead on the head's own wrap");
        double serpentine = ReadOrder.estimateLocateSeconds(order, head, starts, ends, LTO9);
        for (String name : ReadOrders.names()) {
            int[] other = ReadOrders.create(name).order(head, starts, ends, LTO9);
            assertTrue(serpentine <= ReadOrder.estimateLocateSeconds(other, head, starts, ends, LTO9) + SLACK, name);
        }
    }

    @Test
    void order_spansAtOneLposOnManyWraps_servedInOneSweepNotOneWrapAtATime() {
        // one span at LPOS 0.25 and one at 0.75 on each of the 35 forward wraps of band 0: block order walks
        // every wrap end to end; a sweep reads all the 0.25s, then all the 0.75s
        double perWrap = LTO9.blocksPerWrap();
        long[] starts = new long[70];
        long[] ends = new long[70];
        for (int k = 0; k < 35; k++) {
            starts[2 * k] = (long) ((2 * k + 0.25) * perWrap);
            starts[2 * k + 1] = (long) ((2 * k + 0.75) * perWrap);
        }
        for (int i = 0; i < 70; i++) {
            ends[i] = starts[i] + 2000;
        }
        int[] order = new SerpentineOrder().order(0, starts, ends, LTO9);
        double serpentine = ReadOrder.estimateLocateSeconds(order, 0, starts, ends, LTO9);
        double fileSequence = ReadOrder.estimateLocateSeconds(new FileSequenceOrder().order(0, starts, ends, LTO9),
                0, starts, ends, LTO9);
        System.out.printf("aligned spans: serpentine %.0f s, file-sequence %.0f s%n", serpentine, fileSequence);
        assertTrue(serpentine < 0.6 * fileSequence);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"LTO-8", "TS1160"})
    void order_otherMedia_isNeverWorseAndStillGains(String media) {
        EstimatedGeometry g = new EstimatedGeometry(MediaType.byName(media).orElseThrow(), SpanQueues.BLOCK_SIZE);
        for (long seed = 1; seed <= 2; seed++) {
            SpanQueues q = SpanQueues.uniform(g, 1000, seed);
            double serpentine = ReadOrder.estimateLocateSeconds(new SerpentineOrder().order(0, q.starts, q.ends, g),
                    0, q.starts, q.ends, g);
            double fileSequence = ReadOrder.estimateLocateSeconds(new FileSequenceOrder().order(0, q.starts, q.ends, g),
                    0, q.starts, q.ends, g);
            System.out.printf("%s uniform n=1000 seed=%d: serpentine/file-sequence %.3f%n", media, seed,
                    serpentine / fileSequence);
            assertTrue(serpentine < 0.75 * fileSequence);
        }
    }

    @Test
    @Tag("slow")
    void order_100000Spans_isAPermutationThatLocatesLessThanFileSequence() {
        // Its time is printed, not asserted (a loaded machine is slow); `tapeq simulate bulk-recall` runs it at scale.
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        SerpentineOrder serpentine = new SerpentineOrder();
        serpentine.order(0, SpanQueues.uniform(LTO9, 20_000, 99).starts, SpanQueues.uniform(LTO9, 20_000, 99).ends,
                LTO9); // warm up the JIT
        for (long seed = 1; seed <= 3; seed++) {
            SpanQueues q = SpanQueues.uniform(LTO9, 100_000, seed);
            long cpu = threads.getCurrentThreadCpuTime();
            long wall = System.nanoTime();
            int[] order = serpentine.order(MID_TAPE, q.starts, q.ends, LTO9);
            long wallMillis = (System.nanoTime() - wall) / 1_000_000;
            long cpuMillis = (threads.getCurrentThreadCpuTime() - cpu) / 1_000_000;
            ReadOrderTest.assertPermutation(q.size(), order);
            double ratio = ReadOrder.estimateLocateSeconds(order, MID_TAPE, q.starts, q.ends, LTO9)
                    / ReadOrder.estimateLocateSeconds(new FileSequenceOrder().order(MID_TAPE, q.starts, q.ends, LTO9),
                    MID_TAPE, q.starts, q.ends, LTO9);
            System.out.printf("100000 spans seed=%d: %d ms wall, %d ms cpu, serpentine/file-sequence %.3f%n", seed,
                    wallMillis, cpuMillis, ratio);
            assertTrue(ratio < 1, "serpentine/file-sequence " + ratio);
        }
    }
}
