package org.tapeq.scheduler.engine.queue;

/**
 * The runs of a queue's requested tape files (consecutive tape file numbers, each run entered with one locate),
 * counted exactly in O(1) per added or removed request.
 *
 * <p>Design: a count of requests per tape file in an open-addressing table of ints (linear probing, deletion by
 * backward shift; a slot with count 0 is free), so ten million requests cost two ints per distinct tape file and
 * no objects. When a tape file's count goes 0 to 1 it forms a run of its own, joins one neighbour's run or joins
 * the two runs of tape files {@code tf - 1} and {@code tf + 1}: runs change by 1 minus the neighbours present.
 * Going 1 to 0 undoes the same. The table shrinks back to its first size when the queue drains.
 */
final class TapeFileRuns {

    private static final int FIRST_CAPACITY = 16;

    private int[] keys = new int[FIRST_CAPACITY];
    private int[] counts = new int[FIRST_CAPACITY];
    private int size;
    private long runs;

    /** Runs of the tape files counted now. */
    long runs() {
        return runs;
    }

    /** One more request for tape file {@code tf}. */
    void add(int tf) {
        int slot = find(tf);
        if (counts[slot] > 0) {
            counts[slot]++;
            return;
        }
        keys[slot] = tf;
        counts[slot] = 1;
        size++;
        runs += 1 - neighbours(tf);
        if (size * 4 > keys.length * 3) {
            rehash(keys.length * 2);
        }
    }

    /** One request for tape file {@code tf} left; it must have been added. */
    void remove(int tf) {
        int slot = find(tf);
        if (counts[slot] == 0) {
            throw new IllegalStateException("tape file " + tf + " removed but never added");
        }
        if (--counts[slot] > 0) {
            return;
        }
        deleteSlot(slot);
        size--;
        runs -= 1 - neighbours(tf);
        if (size == 0 && keys.length > FIRST_CAPACITY) {
            keys = new int[FIRST_CAPACITY];
            counts = new int[FIRST_CAPACITY];
        }
    }

    private int neighbours(int tf) {
        int n = 0;
        if (tf != Integer.MIN_VALUE && counts[find(tf - 1)] > 0) {
            n++;
        }
        if (tf != Integer.MAX_VALUE && counts[find(tf + 1)] > 0) {
            n++;
        }
        return n;
    }

    private int home(int tf) {
        int h = tf * 0x9E3779B9;
        return (h ^ (h >>> 16)) & (keys.length - 1);
    }

    /** The slot holding {@code tf}, or the free slot where it would go. */
    private int find(int tf) {
        int mask = keys.length - 1;
        int i = home(tf);
        while (counts[i] > 0 && keys[i] != tf) {
            i = (i + 1) & mask;
        }
        return i;
    }

    /** Frees slot {@code i}, moving back the entries after it that would no longer be found. */
    private void deleteSlot(int i) {
        int mask = keys.length - 1;
        int j = i;
        while (true) {
            j = (j + 1) & mask;
            if (counts[j] == 0) {
                break;
            }
            int k = home(keys[j]);
            boolean stays = i <= j ? i < k && k <= j : i < k || k <= j;
            if (!stays) {
                keys[i] = keys[j];
                counts[i] = counts[j];
                i = j;
            }
        }
        counts[i] = 0;
    }

    private void rehash(int capacity) {
        int[] oldKeys = keys;
        int[] oldCounts = counts;
        keys = new int[capacity];
        counts = new int[capacity];
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldCounts[i] > 0) {
                int slot = find(oldKeys[i]);
                keys[slot] = oldKeys[i];
                counts[slot] = oldCounts[i];
            }
        }
    }
}
