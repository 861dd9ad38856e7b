package org.tapeq.scheduler.policy;

/**
 * Slots {@code 0..size-1} of a sorted array, each alive until removed, with "first alive at or after k" and
 * "last alive at or before k" in near-constant amortised time (union-find with path halving, one forest per
 * direction).
 */
final class AliveSet {

    private final int size;
    private final int[] up;
    private final int[] down;

    AliveSet(int size) {
        this.size = size;
        this.up = new int[size + 1];
        this.down = new int[size + 1];
        for (int k = 0; k <= size; k++) {
            up[k] = k;
            down[k] = k;
        }
    }

    /** First alive slot {@code >= k}, or {@code size} if none; {@code k} may be {@code 0..size}. */
    int next(int k) {
        while (up[k] != k) {
            up[k] = up[up[k]];
            k = up[k];
        }
        return k;
    }

    /** Last alive slot {@code <= k}, or -1 if none; {@code k} may be {@code -1..size-1}. */
    int previous(int k) {
        int j = k + 1; // down[] is shifted by one so that index 0 is the "none" sentinel
        while (down[j] != j) {
            down[j] = down[down[j]];
            j = down[j];
        }
        return j - 1;
    }

    void remove(int k) {
        if (k < 0 || k >= size) {
            throw new IndexOutOfBoundsException(k);
        }
        up[k] = k + 1;
        down[k + 1] = k;
    }
}
