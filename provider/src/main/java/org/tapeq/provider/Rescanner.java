package org.tapeq.provider;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.protocol.HeldDirectory;
import org.tapeq.protocol.PnfsIds;
import org.tapeq.protocol.RequestDirectory;

/**
 * Periodic work on the timer thread: the full rescan, the recovery scans after lost events, and the poll of
 * staged files still being written.
 *
 * <p>Design notes. The full rescan finds what no event reported (changes made on other hosts of a shared
 * filesystem) and cleans up after others. It reads {@code request/}, {@code in/} and {@code out/} once each,
 * name by name without collecting them, and signals the tasks concerned; a flush whose link is missing from
 * the {@code out/} listing is found with generation marks: each listing of {@code out/} increments
 * {@link ProviderRuntime#generation}, names seen in {@code out/} get the new mark, and a linked flush with an
 * older mark was linked before the listing began and yet not listed, so its link is gone. Deadlines are
 * checked in the same pass. Entries nobody claims (request files and staged files left by a pool restart,
 * stale error and temporary files) are deleted once they are older than the orphan timeout, counted from
 * their last change or from this provider's start, whichever is later, so that a restarted pool has time to
 * re-send its requests and adopt them. A full rescan costs O(files + requests); its period stretches to at
 * least 20 times its last duration so that huge queues cannot keep the timer busy.
 *
 * <p>A burst of changes overflows the event queue of one watched subdirectory. Its recovery scan reads that
 * subdirectory alone and only for what its events would have said: data files in {@code in/} (O(files
 * delivered and not yet taken), not O(requests)), error files in {@code request/} (request files are skipped
 * by name), the links in {@code out/}. Overflows of one subdirectory coalesce into one pending recovery,
 * spaced after that subdirectory's last recovery (see {@link Recovery}), so a recovery of the big
 * {@code request/} never delays the quick one of {@code in/}. Orphans and deadlines are left to the full
 * rescan.
 */
final class Rescanner {
    private static final Logger LOG = LoggerFactory.getLogger(Rescanner.class);
    private static final int MIN_DUTY_FACTOR = 20;
    private static final int PRODUCTIVE_DUTY_FACTOR = 2;

    private final ProviderRuntime rt;
    private final Recovery requestRecovery = new Recovery(RequestDirectory.REQUEST);
    private final Recovery inRecovery = new Recovery(RequestDirectory.IN);
    private final Recovery outRecovery = new Recovery(RequestDirectory.OUT);
    private volatile long lastDurationMillis;
    private final AtomicLong fullRescans = new AtomicLong();
    private final AtomicLong recoveries = new AtomicLong();
    private final AtomicLong recoveryEntries = new AtomicLong();

    Rescanner(ProviderRuntime rt) {
        this.rt = rt;
    }

    void start() {
        rt.timer.execute(this::rescanAndReschedule);
        schedulePoll();
    }

    /**
     * Asks for a recovery scan of {@code subdirectory} (one of request, in, out) after its events were lost;
     * null for all three (the watcher stopped or a subdirectory can no longer be watched).
     */
    void recoverSoon(String subdirectory) {
        if (subdirectory == null || RequestDirectory.REQUEST.equals(subdirectory)) {
            requestRecovery.requestSoon();
        }
        if (subdirectory == null || RequestDirectory.IN.equals(subdirectory)) {
            inRecovery.requestSoon();
        }
        if (subdirectory == null || RequestDirectory.OUT.equals(subdirectory)) {
            outRecovery.requestSoon();
        }
    }

    /** What was scanned so far; {@code overflows} come from the watcher. */
    ScanCounts counts(long overflows) {
        return new ScanCounts(overflows, fullRescans.get(), recoveries.get(), recoveryEntries.get());
    }

    private void rescanAndReschedule() {
        rescan();
        long delay = Math.max(rt.config().rescan().toMillis(), MIN_DUTY_FACTOR * lastDurationMillis);
        rt.timer.schedule(this::rescanAndReschedule, delay, TimeUnit.MILLISECONDS);
    }

    private void schedulePoll() {
        rt.timer.schedule(() -> {
            for (Task task : rt.polled) {
                task.signal();
            }
            schedulePoll();
        }, rt.config().period().toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The full rescan. */
    void rescan() {
        if (rt.checkDirectory() != null) {
            rt.registry.tasks().forEach(Task::signal); // each fails: the directory is no longer served
            return;
        }
        long start = rt.clock.millis();
        fullRescans.incrementAndGet();
        try {
            Tally tally = new Tally();
            scanRequestDirectory(start, true, tally);
            scanInDirectory(start, true, tally);
            scanOutDirectory(start, true, tally);
        } catch (IOException | RuntimeException e) {
            LOG.error("{}: rescan failed: {}", rt.directory, e.toString());
        }
        lastDurationMillis = rt.clock.millis() - start;
        LOG.debug("{}: rescan of {} requests took {} ms", rt.directory, rt.registry.size(), lastDurationMillis);
    }

    /**
     * Reads request/: signals the tasks whose error file is there; in a full rescan also deletes orphans (a
     * recovery skips request files by their name alone).
     */
    private void scanRequestDirectory(long now, boolean full, Tally tally) throws IOException {
        rt.held.request().forEachName(name -> {
            tally.read++;
            String errorOf = RequestDirectory.pnfsIdOfErrorFile(name);
            if (errorOf == null && !full) {
                return; // a request file or a temporary file: only orphans to look for here
            }
            boolean isRequest = errorOf == null && PnfsIds.isPnfsId(name);
            String id = isRequest ? name : errorOf;
            Task task = id == null ? null : rt.registry.byFileName(id);
            if (task != null) {
                if (!isRequest) {
                    tally.signal(task); // an error file for a request in flight
                }
            } else if (full) {
                deleteIfOrphaned(rt.directory.requestDir().resolve(name), now);
            }
        });
    }

    /**
     * Reads in/: signals the tasks whose staged file is there; in a full rescan also deletes orphans (a
     * staged file nobody claims, a checksum file whose data is gone).
     */
    private void scanInDirectory(long now, boolean full, Tally tally) throws IOException {
        rt.held.in().forEachName(name -> {
            tally.read++;
            boolean isData = PnfsIds.isPnfsId(name);
            String id = isData ? name : full ? RequestDirectory.pnfsIdOfChecksumFile(name) : null;
            if (id == null) {
                return; // the daemon's temporary files are the daemon's business; checksum files wait for data
            }
            Task task = rt.registry.byFileName(id);
            if (task != null) {
                if (isData && (full || !waitsForTimer(task))) {
                    tally.signal(task);
                }
            } else if (full && (isData || !rt.held.in().exists(id))) {
                deleteIfOrphaned(rt.directory.inDir().resolve(name), now);
            }
        });
    }

    /**
     * Whether a timer already signals {@code task} (a staged file in its grace period, or one still being
     * written and polled), so that a recovery need not: waking it would only repeat its wait. A stale read of
     * {@code notBefore} from the I/O thread is harmless here: the full rescan signals every staged file.
     */
    private boolean waitsForTimer(Task task) {
        return task.notBefore != 0 || rt.polled.contains(task);
    }

    /**
     * Reads out/ with a new generation mark, then signals each linked flush whose link was not listed and, in a
     * full rescan, each task past its deadline.
     */
    private void scanOutDirectory(long now, boolean full, Tally tally) throws IOException {
        int generation = ++rt.generation;
        rt.held.out().forEachName(name -> {
            tally.read++;
            Task task = rt.registry.byFileName(name);
            if (task != null) {
                task.mark = generation;
            }
        });
        for (Task task : rt.registry.tasks()) {
            int f = task.flags();
            boolean linkGone = (f & Task.LINKED) != 0 && task.mark != generation;
            boolean expired = full && (f & Task.ACTIVATED) != 0 && task.request.getDeadline() <= now;
            if (linkGone || expired) {
                tally.signal(task);
            }
        }
    }

    private void deleteIfOrphaned(Path entry, long now) {
        try {
            HeldDirectory dir = rt.held.holding(entry);
            String name = entry.getFileName().toString();
            BasicFileAttributes a = dir.attributes(name);
            long since = Math.max(a.lastModifiedTime().toMillis(), rt.startMillis);
            if (now - since >= rt.config().orphanTimeout().toMillis()) {
                dir.delete(name);
                LOG.info("{}: removed, no request has claimed it for {} s", entry, (now - since) / 1000);
            }
        } catch (NoSuchFileException e) {
            // gone meanwhile
        } catch (IOException e) {
            LOG.warn("{}: cannot remove orphaned entry: {}", entry, e.toString());
        }
    }

    /** What one scan read and how many idle tasks it woke; used by one scan on one thread. */
    private static final class Tally {
        long read;
        long woken;

        void signal(Task task) {
            if (task.signal()) {
                woken++;
            }
        }

        /**
         * How many times its own duration the next recovery waits after this one: 2 if it woke a task (it did
         * the work of lost events), 20 if not (it read only entries nobody acts on, or tasks already queued).
         */
        long dutyFactor() {
            return woken > 0 ? PRODUCTIVE_DUTY_FACTOR : MIN_DUTY_FACTOR;
        }
    }

    /**
     * The pending recovery of one subdirectory: at most one scheduled at a time, which waits 2 or 20 times the
     * last one's duration ({@link Tally#dutyFactor()}). A recovery that hands tasks their answers does their
     * work, not overhead; one that woke nobody read orphans or a backlog the I/O threads hold already.
     */
    private final class Recovery {
        private final String subdirectory;
        private final AtomicBoolean scheduled = new AtomicBoolean();
        private volatile long earliestNext;

        Recovery(String subdirectory) {
            this.subdirectory = subdirectory;
        }

        void requestSoon() {
            if (scheduled.compareAndSet(false, true)) {
                long wait = Math.max(0, earliestNext - rt.clock.millis());
                rt.timer.schedule(this::run, wait, TimeUnit.MILLISECONDS);
            }
        }

        /** Clears the flag before reading, so that events lost while it reads ask for another recovery. */
        private void run() {
            scheduled.set(false);
            if (rt.checkDirectory() != null) {
                rt.registry.tasks().forEach(Task::signal);
                return;
            }
            long start = rt.clock.millis();
            Tally tally = new Tally();
            try {
                switch (subdirectory) {
                    case RequestDirectory.REQUEST:
                        scanRequestDirectory(start, false, tally);
                        break;
                    case RequestDirectory.IN:
                        scanInDirectory(start, false, tally);
                        break;
                    default:
                        scanOutDirectory(start, false, tally);
                        break;
                }
            } catch (IOException | RuntimeException e) {
                LOG.error("{}: recovery scan of {}/ failed: {}", rt.directory, subdirectory, e.toString());
            }
            recoveries.incrementAndGet();
            recoveryEntries.addAndGet(tally.read);
            long took = rt.clock.millis() - start;
            earliestNext = start + took * tally.dutyFactor();
            LOG.debug("{}: recovery scan of {}/ after lost events: {} entries, {} tasks woken, {} ms", rt.directory,
                    subdirectory, tally.read, tally.woken, took);
        }
    }
}
