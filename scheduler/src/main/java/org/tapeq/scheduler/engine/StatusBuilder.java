package org.tapeq.scheduler.engine;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.CartridgeState;
import org.tapeq.scheduler.engine.drive.DriveRunner;
import org.tapeq.scheduler.engine.queue.PendingAggregate;
import org.tapeq.scheduler.engine.queue.WorkQueue;

/** Builds {@link SchedulerStatus} from the engine's state, on the loop. */
final class StatusBuilder {

    private StatusBuilder() {
    }

    static SchedulerStatus build(Engine e, WorkHold hold, int offset, int limit) {
        long now = e.loop.now();
        List<SchedulerStatus.DriveStatus> drives = new ArrayList<>();
        for (DriveRunner d : e.dispatcher.drives()) {
            String state = d.unreachable() != null ? "unavailable" : d.state().name().toLowerCase(java.util.Locale.ROOT);
            drives.add(new SchedulerStatus.DriveStatus(d.id(), state,
                    d.mounted(), d.activity(), d.since(), d.errors(), e.dispatcher.accountedGroup(d),
                    d.isDown() ? d.downReason() : d.lastError(), d.cleaningDue()));
        }
        List<WorkQueue> all = new ArrayList<>();
        long oldest = Long.MAX_VALUE;
        for (WorkQueue q : e.queues.cartridgeQueues()) {
            if (!q.isEmpty()) {
                all.add(q);
                oldest = Math.min(oldest, q.oldestArrival());
            }
        }
        for (WorkQueue q : e.queues.familyQueues()) {
            if (!q.isEmpty()) {
                all.add(q);
                oldest = Math.min(oldest, q.oldestArrival());
            }
        }
        all.sort(Comparator.comparing((WorkQueue q) -> !q.isHeld())
                .thenComparing(q -> !q.isReady())
                .thenComparing(q -> -q.rankKey()));
        List<SchedulerStatus.QueueStatus> queues = new ArrayList<>();
        int from = Math.min(offset, all.size());
        for (WorkQueue q : all.subList(from, Math.min(all.size(), from + limit))) {
            queues.add(queueStatus(e, q, now));
        }
        List<SchedulerStatus.AggregateStatus> open = new ArrayList<>();
        for (PendingAggregate a : e.aggregator.open().values()) {
            open.add(new SchedulerStatus.AggregateStatus(a.family(), a.dataset(), a.members().size(), a.bytes(),
                    a.opened()));
        }
        Map<String, Integer> byState = new TreeMap<>();
        List<SchedulerStatus.CartridgeStatus> attention = new ArrayList<>();
        List<CartridgeRecord> cartridges = new ArrayList<>();
        for (CartridgeRecord c : e.cartridges.all()) {
            cartridges.add(c);
            byState.merge(c.state().name().toLowerCase(java.util.Locale.ROOT), 1, Integer::sum);
            if (c.disabled() || c.state() == CartridgeState.SUSPECT || c.state() == CartridgeState.FOREIGN
                    || c.state() == CartridgeState.BLANK) {
                attention.add(new SchedulerStatus.CartridgeStatus(c.barcode(),
                        c.state().name().toLowerCase(java.util.Locale.ROOT), c.disabled(), c.reason()));
            }
        }
        cartridges.sort(Comparator.comparing(CartridgeRecord::barcode));
        List<SchedulerStatus.CartridgeUse> uses = new ArrayList<>();
        int first = Math.min(offset, cartridges.size());
        for (CartridgeRecord c : cartridges.subList(first, Math.min(cartridges.size(), first + limit))) {
            uses.add(new SchedulerStatus.CartridgeUse(c.barcode(), c.family(),
                    c.state().name().toLowerCase(java.util.Locale.ROOT), c.disabled(), c.capacityBytes(),
                    c.usedBytes(), c.mountCount(), c.reason()));
        }
        String robot = e.dispatcher.robot().paused(now) ? e.dispatcher.robot().reason() : null;
        return new SchedulerStatus(now, e.config.policy(), e.counters.snapshot(), drives, all.size(),
                e.queues.index().readyCount(), e.queues.index().waitingCount(), queues, open, byState, attention,
                oldest == Long.MAX_VALUE ? 0 : oldest, robot, new TreeMap<>(e.cartridges.mountsThisRun()),
                new TreeMap<>(e.stalls.snapshot()), uses, new SchedulerStatus.Background(e.dispatcher.background().waiting(),
                e.dispatcher.background().running(), e.config.maxBackgroundDrives(),
                e.dispatcher.background().share(), e.dispatcher.background().allowance(),
                e.dispatcher.background().slices(), e.dispatcher.background().mounts(),
                e.dispatcher.background().yields(), e.dispatcher.background().episodeBackgroundSeconds(),
                e.dispatcher.background().episodeUserSeconds()), e.verifications.reports(),
                e.repacks.reports(), e.migrations.reports(), e.relabels.reports(), e.verifyPolicy.report(),
                cartridges.size(), e.recentFaults.newestFirst(), e.reclaim.status(), hold.status());
    }

    private static SchedulerStatus.QueueStatus queueStatus(Engine e, WorkQueue q, long now) {
        String state;
        String reason = null;
        if (q.isHeld()) {
            state = "mounted";
            reason = "in drive " + q.holder().id() + ": " + q.holder().activity();
            if (q.blockedReason() != null) {
                state = "blocked";
                reason = q.blockedReason();
            }
        } else if (q.isReady()) {
            state = "ready";
            reason = readyReason(e, q);
        } else if (q.isWaiting()) {
            state = "waiting";
            reason = waitReason(e, q, now);
        } else {
            state = "blocked";
            reason = q.blockedReason() != null ? q.blockedReason() : "no usable drive or cartridge";
        }
        return new SchedulerStatus.QueueStatus(q.name(), q.group(), q.files(), q.bytes(), q.oldestArrival(), state,
                q.eligibleKey(), reason);
    }

    private static String readyReason(Engine e, WorkQueue q) {
        if (q.isFamilyQueue() && q.blockedReason() != null) {
            return q.blockedReason();
        }
        if (e.dispatcher.robot().paused(e.loop.now())) {
            return e.dispatcher.robot().reason();
        }
        boolean allDown = e.dispatcher.drives().stream().allMatch(DriveRunner::isDown);
        if (allDown) {
            return "every drive is down";
        }
        CartridgeRecord c = q.barcode() == null ? null : e.cartridges.get(q.barcode());
        if (c != null && c.disabled()) {
            return "cartridge disabled: " + c.reason();
        }
        return "eligible; waiting for a free drive (group and direction caps apply)";
    }

    private static String waitReason(Engine e, WorkQueue q, long now) {
        StringBuilder sb = new StringBuilder("eligible in ").append((q.eligibleKey() - now) / 1000).append(" s");
        if (q.retryNotBefore() > now) {
            sb.append(" (retry backoff after an error)");
        } else if (q.lastUnmount() != Long.MIN_VALUE && now - q.lastUnmount() < e.config.remountGuardMillis()) {
            sb.append(" (remount guard: unmounted ").append((now - q.lastUnmount()) / 1000).append(" s ago)");
        } else {
            sb.append(" (below a full mount's files or bytes; waiting for the quiet time or the maximum wait)");
        }
        return sb.toString();
    }
}
