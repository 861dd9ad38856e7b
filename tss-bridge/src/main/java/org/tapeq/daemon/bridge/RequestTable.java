package org.tapeq.daemon.bridge;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The requests one directory is serving: the current request file of each pnfsid (and delivered stages waiting
 * for the pool), the requests the scheduler holds until their outcome arrives, and the trash entries being
 * removed. Owned by the bridge's thread.
 *
 * <p>Request ids are a plain sequence per directory: the scheduler only hands them back, outcomes find their
 * directory through the request's origin, and consecutive longs spread evenly over a HashMap's buckets.
 *
 * <p>Design note: a directory may hold ten million requests, so they are kept in a {@link PnfsidTable} (no map
 * node per request), and a request the scheduler holds is found by its
 * pnfsid when its outcome comes back (it carries the id and the pnfsid); only those that stopped being current
 * meanwhile (replaced, cancelled) are kept by id, in {@link #detached}. The counts by state and the oldest waiting
 * request are kept as requests change ({@link Ledger}), so a status never goes through all of them.
 */
final class RequestTable {

    private final PnfsidTable requests = new PnfsidTable();
    /** Requests the scheduler holds that are no longer the current request of their pnfsid, by id. */
    private final Map<Long, Tracked> detached = new HashMap<>();
    private int inScheduler;
    private final Ledger ledger;
    /** Trash names being removed: name to request id. */
    private final Map<String, Long> trash = new HashMap<>();
    private long nextId = 1;

    RequestTable(StageTargets targets) {
        this.ledger = new Ledger(targets);
    }

    /** Where the stages of this directory write their bytes. */
    StageTargets targets() {
        return ledger.targets;
    }

    long newId() {
        return nextId++;
    }

    /** Room for {@code expected} requests at once, kept until reserved again (0: no longer); see {@link PnfsidTable}. */
    void reserve(int expected) {
        requests.reserve(expected);
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
        Tracked old = requests.put(t);
        if (old != t) {
            left(old);
            t.joined(ledger);
        }
        return old;
    }

    void remove(String pnfsid) {
        left(requests.remove(pnfsid, null));
    }

    /** Removes {@code t} if it is still the current request of its pnfsid. */
    void remove(Tracked t) {
        left(requests.remove(t.pnfsid, t));
    }

    private void left(Tracked t) {
        if (t == null) {
            return;
        }
        t.left();
        if (t.inScheduler()) {
            detached.put(t.id, t);
        }
    }

    int size() {
        return requests.size();
    }

    /** A copy, so the caller may change the table while it goes through them. */
    List<Tracked> all() {
        return requests.matching(t -> true);
    }

    /** The requests in {@code state}: none when none is (the counts are kept), else a pass over all of them. */
    List<Tracked> inState(Tracked.State state) {
        return ledger.count(state) == 0 ? new ArrayList<>() : requests.matching(t -> t.is(state));
    }

    /** {@code t} was handed to the scheduler; its outcome will come back with its id. */
    void handedOver(Tracked t) {
        if (!t.inScheduler()) {
            t.inScheduler(true);
            inScheduler++;
        }
    }

    /** The request whose outcome arrived, no longer held by the scheduler; null if unknown. */
    Tracked returned(long id, String pnfsid) {
        Tracked t = requests.get(pnfsid);
        if (t == null || t.id != id || !t.inScheduler()) {
            t = detached.remove(id);
        }
        if (t != null && t.inScheduler()) {
            t.inScheduler(false);
            inScheduler--;
            return t;
        }
        return null;
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

    /**
     * Counts, the oldest waiting request and parked flushes {@code offset} to {@code offset + limit} (oldest first):
     * all kept as the requests change.
     */
    Summary summary(int offset, int limit) {
        List<BridgeStatus.Parked> parked = new ArrayList<>();
        int parkedCount = ledger.count(Tracked.State.PARKED);
        if (parkedCount > 0 && limit > 0 && offset < parkedCount) {
            List<Tracked> attention = ledger.parked();
            attention.sort(Comparator.comparingLong((Tracked t) -> t.seenMillis).thenComparing(t -> t.pnfsid));
            for (Tracked t : attention.subList(offset, Math.min(attention.size(), offset + limit))) {
                parked.add(new BridgeStatus.Parked(t.pnfsid, t.seenMillis, t.reason()));
            }
        }
        return new Summary(ledger.counts(), trash.size(), inScheduler, ledger.oldestWaitingMillis(), parkedCount,
                parked);
    }
}
