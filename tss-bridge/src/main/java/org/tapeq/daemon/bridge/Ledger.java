package org.tapeq.daemon.bridge;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.Map;
import java.util.TreeMap;

/**
 * What every request of one directory shares, so that a request holds one reference for it: where stages write
 * their bytes ({@link StageTargets}, immutable), and the number of current requests in each state, kept as they
 * change, and the waiting requests in the order they started to wait, for the oldest one: status reads these
 * without going through ten million requests. The counts and the list belong to the bridge's thread, like the
 * requests.
 *
 * <p>Design note: the waiting list is cleaned lazily. A request that stops waiting stays in it until it reaches
 * the head, or until such requests are more than half of the list, which is then rebuilt (amortised O(1) per
 * request). A request that waits again after it left the list (a flush whose write failed) goes to its end, so
 * the oldest shown can then be a little younger than the oldest there is.
 */
final class Ledger {

    final StageTargets targets;
    private final int[] byState = new int[Tracked.State.values().length];
    private ArrayDeque<Tracked> waiting = new ArrayDeque<>();
    /** Requests in {@link #waiting} that no longer wait. */
    private int stale;
    /** The current requests that are parked (few: flushes that failed with no channel to say so). */
    private final Set<Tracked> parked = new LinkedHashSet<>();

    Ledger(StageTargets targets) {
        this.targets = targets;
    }

    /** Current request {@code t} left state {@code from} (null: it was not counted) for {@code to} (null: no longer). */
    void moved(Tracked t, Tracked.State from, Tracked.State to) {
        if (from != null) {
            byState[from.ordinal()]--;
        }
        if (to != null) {
            byState[to.ordinal()]++;
        }
        if (from == Tracked.State.PARKED) {
            parked.remove(t);
        }
        if (to == Tracked.State.PARKED) {
            parked.add(t);
        }
        boolean was = waits(from);
        boolean is = waits(to);
        if (is && !t.listedWaiting) {
            t.listedWaiting = true;
            waiting.addLast(t);
        } else if (was && !is && t.listedWaiting && ++stale > 1024 && stale > waiting.size() / 2) {
            rebuildWaiting();
        }
    }

    private static boolean waits(Tracked.State s) {
        return s == Tracked.State.QUEUED || s == Tracked.State.WAITING_LINK || s == Tracked.State.CHECKING;
    }

    private static boolean stillWaits(Tracked t) {
        return t.counted() && t.inProgress();
    }

    private void rebuildWaiting() {
        ArrayDeque<Tracked> keep = new ArrayDeque<>(Math.max(16, waiting.size() - stale));
        for (Tracked t : waiting) {
            if (stillWaits(t)) {
                keep.addLast(t);
            } else {
                t.listedWaiting = false;
            }
        }
        waiting = keep;
        stale = 0;
    }

    /** When the request waiting longest was first seen (wall-clock ms), or 0 if none waits. */
    long oldestWaitingMillis() {
        while (!waiting.isEmpty() && !stillWaits(waiting.peekFirst())) {
            waiting.pollFirst().listedWaiting = false;
            stale = Math.max(0, stale - 1);
        }
        return waiting.isEmpty() ? 0 : waiting.peekFirst().seenMillis;
    }

    /** The parked requests, a copy. */
    List<Tracked> parked() {
        return new ArrayList<>(parked);
    }

    int count(Tracked.State s) {
        return byState[s.ordinal()];
    }

    /** The states with at least one current request, by their lower-case names. */
    Map<String, Integer> counts() {
        Map<String, Integer> out = new TreeMap<>();
        for (Tracked.State s : Tracked.State.values()) {
            if (byState[s.ordinal()] > 0) {
                out.put(s.name().toLowerCase(Locale.ROOT), byState[s.ordinal()]);
            }
        }
        return out;
    }
}
