package org.tapeq.daemon.bridge;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * The current request of each pnfsid: an open-addressing hash table of the requests themselves, keyed by their
 * pnfsid. Owned by the bridge's thread, like the requests.
 *
 * <p>Design note: a directory may hold ten million requests; a {@code HashMap} spends a 32-byte node and a slot
 * of its table on each, this table 8 to 16 bytes (one reference per slot, at most half the slots in use).
 * Linear probing; a removal shifts the entries after it back, so there are no tombstones and a lookup stops at
 * the first empty slot.
 */
final class PnfsidTable {

    private static final int MIN_CAPACITY = 16;

    private Tracked[] slots = new Tracked[MIN_CAPACITY];
    private int size;
    /** The table does not shrink below this many slots ({@link #reserve}). */
    private int reserved = MIN_CAPACITY;

    int size() {
        return size;
    }

    /** Slots in the table now (tests). */
    int capacity() {
        return slots.length;
    }

    Tracked get(String pnfsid) {
        Tracked[] s = slots;
        int mask = s.length - 1;
        for (int i = index(pnfsid, mask); ; i = (i + 1) & mask) {
            Tracked t = s[i];
            if (t == null || t.pnfsid.equals(pnfsid)) {
                return t;
            }
        }
    }

    /** Makes {@code t} the entry of its pnfsid; returns the one it replaces, or null. */
    Tracked put(Tracked t) {
        if (2 * (size + 1) > slots.length) {
            resize(slots.length * 2);
        }
        int mask = slots.length - 1;
        for (int i = index(t.pnfsid, mask); ; i = (i + 1) & mask) {
            Tracked old = slots[i];
            if (old == null) {
                slots[i] = t;
                size++;
                return null;
            }
            if (old.pnfsid.equals(t.pnfsid)) {
                slots[i] = t;
                return old;
            }
        }
    }

    /** Removes the entry of {@code pnfsid} if it is {@code only}, or whatever it is when {@code only} is null. */
    Tracked remove(String pnfsid, Tracked only) {
        int mask = slots.length - 1;
        int i = index(pnfsid, mask);
        while (slots[i] != null && !slots[i].pnfsid.equals(pnfsid)) {
            i = (i + 1) & mask;
        }
        Tracked t = slots[i];
        if (t == null || (only != null && t != only)) {
            return null;
        }
        slots[i] = null;
        size--;
        // Shift back the entries of the same run that would not be found past the hole.
        for (int j = (i + 1) & mask; slots[j] != null; j = (j + 1) & mask) {
            int home = index(slots[j].pnfsid, mask);
            boolean movable = i <= j ? home <= i || home > j : home <= i && home > j;
            if (movable) {
                slots[i] = slots[j];
                slots[j] = null;
                i = j;
            }
        }
        if (slots.length > reserved && 8 * size < slots.length) {
            resize(slots.length / 2);
        }
        return t;
    }

    /**
     * Makes room for {@code expected} entries at once and keeps it until reserved again (0: no longer): a restart
     * that lists a million request files fills the table without doubling it twenty times on the way.
     */
    void reserve(int expected) {
        int capacity = MIN_CAPACITY;
        while (capacity < 2L * expected && capacity < 1 << 30) {
            capacity <<= 1;
        }
        reserved = capacity;
        if (capacity > slots.length) {
            resize(capacity);
        }
    }

    /** The entries {@code which} accepts, a copy (the caller may change the table while it goes through them). */
    List<Tracked> matching(Predicate<Tracked> which) {
        List<Tracked> out = new ArrayList<>();
        for (Tracked t : slots) {
            if (t != null && which.test(t)) {
                out.add(t);
            }
        }
        return out;
    }

    private void resize(int capacity) {
        Tracked[] old = slots;
        slots = new Tracked[capacity];
        int mask = capacity - 1;
        for (Tracked t : old) {
            if (t != null) {
                int i = index(t.pnfsid, mask);
                while (slots[i] != null) {
                    i = (i + 1) & mask;
                }
                slots[i] = t;
            }
        }
    }

    private static int index(String pnfsid, int mask) {
        int h = pnfsid.hashCode() * 0x9E3779B9;
        return (h ^ (h >>> 16)) & mask;
    }
}
