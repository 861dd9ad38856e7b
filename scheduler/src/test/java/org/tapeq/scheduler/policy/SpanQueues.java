package org.tapeq.scheduler.policy;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.TreeSet;

/** Seeded test workloads: non-overlapping, non-touching read spans on one cartridge, in shuffled arrival order. */
final class SpanQueues {

    static final int BLOCK_SIZE = 256 * 1024;
    private static final long MB = 1_000_000L;

    final long[] starts;
    final long[] ends;

    private SpanQueues(long[] starts, long[] ends) {
        this.starts = starts;
        this.ends = ends;
    }

    int size() {
        return starts.length;
    }

    /**
     * {@code n} spans whose starts are spread uniformly over the whole tape; sizes 100 MB..4 GB, cut short one
     * block before the next span. From about 5 000 spans on, these queues cover most of the tape.
     */
    static SpanQueues uniform(EstimatedGeometry g, int n, long seed) {
        return uniform(g, n, seed, 100 * MB, 4_000 * MB);
    }

    /** As {@link #uniform(EstimatedGeometry, int, long)} with span sizes drawn uniformly from the given range. */
    static SpanQueues uniform(EstimatedGeometry g, int n, long seed, long minBytes, long maxBytes) {
        SplittableRandom random = new SplittableRandom(seed);
        long blocks = capacityBlocks(g);
        TreeSet<Long> startSet = new TreeSet<>();
        while (startSet.size() < n) {
            startSet.add(random.nextLong(blocks));
        }
        return fromStarts(g, startSet, random, minBytes, maxBytes);
    }

    /**
     * {@code n} spans in {@code clusters} regions of the block space (as when a dataset was written in a few
     * sessions): each start is drawn around a random centre with a spread of {@code spreadWraps} wraps.
     */
    static SpanQueues clustered(EstimatedGeometry g, int n, int clusters, double spreadWraps, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        long blocks = capacityBlocks(g);
        long[] centres = new long[clusters];
        for (int c = 0; c < clusters; c++) {
            centres[c] = random.nextLong(blocks);
        }
        double spread = spreadWraps * g.blocksPerWrap();
        TreeSet<Long> startSet = new TreeSet<>();
        while (startSet.size() < n) {
            long centre = centres[random.nextInt(clusters)];
            long start = centre + (long) (gaussian(random) * spread);
            if (start >= 0 && start < blocks) {
                startSet.add(start);
            }
        }
        return fromStarts(g, startSet, random, 100 * MB, 4_000 * MB);
    }

    private static SpanQueues fromStarts(EstimatedGeometry g, TreeSet<Long> startSet, SplittableRandom random,
                                         long minBytes, long maxBytes) {
        long blocks = capacityBlocks(g);
        long[] sorted = startSet.stream().mapToLong(Long::longValue).toArray();
        int n = sorted.length;
        long[] sortedEnds = new long[n];
        for (int k = 0; k < n; k++) {
            long limit = k + 1 < n ? sorted[k + 1] - 1 : blocks; // leave a gap: merged spans do not touch
            long size = Math.max(1, (minBytes + random.nextLong(maxBytes - minBytes + 1)) / BLOCK_SIZE);
            sortedEnds[k] = Math.max(sorted[k] + 1, Math.min(sorted[k] + size, limit));
        }
        int[] arrival = new int[n];
        Arrays.setAll(arrival, i -> i);
        for (int i = n - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int x = arrival[i];
            arrival[i] = arrival[j];
            arrival[j] = x;
        }
        long[] starts = new long[n];
        long[] ends = new long[n];
        for (int i = 0; i < n; i++) {
            starts[i] = sorted[arrival[i]];
            ends[i] = sortedEnds[arrival[i]];
        }
        return new SpanQueues(starts, ends);
    }

    static long capacityBlocks(EstimatedGeometry g) {
        return g.media().capacityBytes() / g.blockSize();
    }

    private static double gaussian(SplittableRandom random) {
        double u = 1 - random.nextDouble();
        double v = random.nextDouble();
        return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    }
}
