package org.tapeq.daemon.bridge;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The requests one directory is serving: the current request file of each pnfsid (and delivered stages waiting
 * for the pool), the requests the scheduler holds until their outcome arrives, and the trash entries being
 * removed. Owned by the bridge's thread.
 *
 * <p>Request ids are a plain sequence per directory: the scheduler only hands them back, outcomes find their
 * directory through the request's origin, and consecutive longs spread evenly over a HashMap's buckets.
 */
final class RequestTable {

    private final Map<String, Tracked> requests = new HashMap<>();
    private final Map<Long, Tracked> inScheduler = new HashMap<>();
    /** Trash names being removed: name to request id. */
    private final Map<String, Long> trash = new HashMap<>();
    private long nextId = 1;

    long newId() {
        return nextId++;
    }

    Tracked get(String pnfsid) {
        return requests.get(pnfsid);
    }

    /** Whether {@code t} is still the current request of its pnfsid. */
    boolean isCurrent(Tracked t) {
        return requests.get(t.pnfsid) == t;
    }

    /** Makes {@code t} the current request of its pnfsid; returns the one it replaces, or null. */
    Tracked put(Tracked t) {
        return requests.put(t.pnfsid, t);
    }

    void remove(String pnfsid) {
        requests.remove(pnfsid);
    }

    /** Removes {@code t} if it is still the current request of its pnfsid. */
    void remove(Tracked t) {
        requests.remove(t.pnfsid, t);
    }

    int size() {
        return requests.size();
    }

    /** A copy, so the caller may change the table while it goes through them. */
    List<Tracked> all() {
        return new ArrayList<>(requests.values());
    }

    List<Tracked> inState(Tracked.State state) {
        List<Tracked> out = new ArrayList<>();
        for (Tracked t : requests.values()) {
            if (t.is(state)) {
                out.add(t);
            }
        }
        return out;
    }

    /** {@code t} was handed to the scheduler; its outcome will come back with its id. */
    void handedOver(Tracked t) {
        inScheduler.put(t.id, t);
    }

    /** The request whose outcome arrived, no longer held by the scheduler; null if unknown. */
    Tracked returned(long id) {
        return inScheduler.remove(id);
    }

    /** A new trash entry to remove: its request id, or -1 if it is being removed already. */
    long startRemoval(String name) {
        if (trash.containsKey(name)) {
            return -1;
        }
        long id = newId();
        trash.put(name, id);
        return id;
    }

    void removalEnded(String name) {
        trash.remove(name);
    }

    /** The table's part of a {@link BridgeStatus}. */
    record Summary(Map<String, Integer> states, int removing, int inScheduler, long oldestMillis, int parkedCount,
                   List<BridgeStatus.Parked> parked) {
    }

    Summary summary(int maxListed) {
        Map<Tracked.State, Integer> byState = new EnumMap<>(Tracked.State.class);
        long oldest = 0;
        List<Tracked> attention = new ArrayList<>();
        for (Tracked t : requests.values()) {
            byState.merge(t.state(), 1, Integer::sum);
            if (t.inProgress()) {
                oldest = oldest == 0 ? t.seenMillis : Math.min(oldest, t.seenMillis);
            }
            if (t.is(Tracked.State.PARKED)) {
                attention.add(t);
            }
        }
        attention.sort(Comparator.comparingLong(t -> t.seenMillis));
        List<BridgeStatus.Parked> parked = new ArrayList<>();
        for (int i = 0; i < attention.size() && parked.size() < maxListed; i++) {
            Tracked t = attention.get(i);
            parked.add(new BridgeStatus.Parked(t.pnfsid, t.seenMillis, t.reason()));
        }
        Map<String, Integer> states = new HashMap<>();
        byState.forEach((k, v) -> states.put(k.name().toLowerCase(Locale.ROOT), v));
        return new Summary(states, trash.size(), inScheduler.size(), oldest, attention.size(), parked);
    }
}
