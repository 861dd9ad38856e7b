package org.tapeq.provider;

import diskCacheV111.util.PnfsId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The requests in flight, by dCache request id (for O(1) cancel) and by pnfsid (for O(1) dispatch of
 * directory events). Both maps use dCache's own {@link UUID} and {@link PnfsId} objects as keys, so they
 * add no key objects of their own.
 *
 * <p>Design notes. dCache's {@code PnfsId.hashCode()} is {@code Arrays.hashCode} of the id's bytes, under which
 * ids that differ only in their last bytes collide in bulk (1 000 000 consecutive ids share 21 615 hash codes):
 * one map would keep them in tree bins, searched by comparison on every admission and every directory event.
 * So the pnfsid map is split into {@value #STRIPES} maps chosen by a hash of the id's text that such ids do not
 * share; within one of them, at most a handful of ids share a hash code.
 *
 * <p>At most one task per pnfsid works in the directory at a time: a task admitted while another for the
 * same pnfsid is still in flight (dCache re-sending a request the provider is still cleaning up after) is
 * chained behind it and started only once its predecessor has left the directory.
 */
final class RequestRegistry {
    private final Map<UUID, Task> byId = new ConcurrentHashMap<>();
    private static final int STRIPE_BITS = 6;
    private static final int STRIPES = 1 << STRIPE_BITS;
    private final List<Map<PnfsId, Task>> byPnfsId = new ArrayList<>(STRIPES);

    RequestRegistry() {
        for (int i = 0; i < STRIPES; i++) {
            byPnfsId.add(new ConcurrentHashMap<>());
        }
    }

    /** The map holding the pnfsid written {@code name} (either case). */
    private Map<PnfsId, Task> stripe(String name) {
        int h = 0;
        for (int i = 0; i < name.length(); i++) {
            h = 31 * h + (name.charAt(i) | 0x20); // hex digits folded to lower case
        }
        return byPnfsId.get((h * 0x9E3779B9) >>> (32 - STRIPE_BITS));
    }

    /**
     * Registers {@code task}. Returns true if it may start now, false if it is queued behind another task
     * for the same pnfsid; throws {@link IllegalStateException} if its id is already in flight.
     */
    boolean admit(Task task) {
        if (byId.putIfAbsent(task.request.getId(), task) != null) {
            throw new IllegalStateException("request id " + task.request.getId() + " is already in flight");
        }
        Task head = stripe(task.name()).compute(task.pnfsId, (id, current) -> {
            if (current == null) {
                return task;
            }
            Task last = current;
            while (last.successor != null) {
                last = last.successor;
            }
            last.successor = task;
            return current;
        });
        return head == task;
    }

    /** Removes a finished task; returns its successor, which the caller must start, or null. */
    Task retire(Task task) {
        byId.remove(task.request.getId(), task);
        Task[] next = new Task[1];
        stripe(task.name()).computeIfPresent(task.pnfsId, (id, head) -> {
            if (head == task) {
                next[0] = task.successor;
                return task.successor;
            }
            for (Task t = head; t.successor != null; t = t.successor) {
                if (t.successor == task) {
                    t.successor = task.successor;
                    break;
                }
            }
            return head;
        });
        return next[0];
    }

    Task byId(UUID id) {
        return byId.get(id);
    }

    /** The task working in the directory for the file named {@code name}, or null. */
    Task byFileName(String name) {
        if (name.length() != 24 && name.length() != 36) {
            return null; // dCache writes pnfsids with 24 or 36 digits; anything else is not ours
        }
        try {
            return stripe(name).get(new PnfsId(name));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    Collection<Task> tasks() {
        return byId.values();
    }

    int size() {
        return byId.size();
    }
}
