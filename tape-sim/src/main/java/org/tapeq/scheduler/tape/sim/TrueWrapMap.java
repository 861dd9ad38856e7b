package org.tapeq.scheduler.tape.sim;

import java.util.SplittableRandom;

/**
 * The truth of the simulated library: where the bytes of one cartridge really lie, per wrap its capacity and its
 * usable span of LPOS. Irregular per cartridge (see the design notes in {@link TapePhysics}). It never calls the
 * scheduler's estimate ({@code org.tapeq.scheduler.policy.EstimatedGeometry}): the two are separate on purpose,
 * so that the scheduler is graded against a tape that is not built from its own assumptions.
 */
final class TrueWrapMap {

    private final int wraps;
    private final long capacity;
    /** wrapStart[i] is the first byte offset of wrap i; wrapStart[wraps] is the capacity. */
    private final long[] wrapStart;
    private final double[] spanLow;
    private final double[] spanHigh;

    TrueWrapMap(int wraps, long nominalCapacity, double tapeMetres, double jitter, double capacityOffset, long seed) {
        long capacity = Math.round(nominalCapacity * (1 + capacityOffset));
        if (capacity < wraps * 1024L) {
            throw new IllegalArgumentException("capacity " + capacity + " is below 1 KiB per wrap (" + wraps
                    + " wraps)");
        }
        this.wraps = wraps;
        this.capacity = capacity;
        this.wrapStart = new long[wraps + 1];
        this.spanLow = new double[wraps];
        this.spanHigh = new double[wraps];
        SplittableRandom random = new SplittableRandom(seed);
        double[] weight = new double[wraps];
        double sum = 0;
        for (int i = 0; i < wraps; i++) {
            weight[i] = 1 + jitter * (2 * random.nextDouble() - 1);
            sum += weight[i];
        }
        double cumulative = 0;
        for (int i = 0; i < wraps; i++) {
            cumulative += weight[i];
            wrapStart[i + 1] = i == wraps - 1 ? capacity : Math.round(capacity * cumulative / sum);
            double span = tapeMetres * weight[i] / (1 + jitter);
            spanLow[i] = (tapeMetres - span) / 2;
            spanHigh[i] = spanLow[i] + span;
        }
    }

    int wraps() {
        return wraps;
    }

    long capacity() {
        return capacity;
    }

    long wrapCapacity(int wrap) {
        return wrapStart[wrap + 1] - wrapStart[wrap];
    }

    long wrapStart(int wrap) {
        return wrapStart[wrap];
    }

    /** The wrap holding the byte at {@code offset}; the end of a full tape counts as the last wrap. */
    int wrapOf(long offset) {
        if (offset >= capacity) {
            return wraps - 1;
        }
        int low = 0;
        int high = wraps - 1;
        while (low < high) {
            int mid = (low + high + 1) >>> 1;
            if (wrapStart[mid] <= offset) {
                low = mid;
            } else {
                high = mid - 1;
            }
        }
        return low;
    }

    /** Longitudinal position in metres from BOT of the byte at {@code offset} on {@code wrap}. */
    double lpos(int wrap, long offset) {
        double fraction = (double) (Math.min(offset, capacity) - wrapStart[wrap]) / wrapCapacity(wrap);
        double span = spanHigh[wrap] - spanLow[wrap];
        return (wrap & 1) == 0 ? spanLow[wrap] + fraction * span : spanHigh[wrap] - fraction * span;
    }
}
