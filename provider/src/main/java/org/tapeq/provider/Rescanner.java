package org.tapeq.provider;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.protocol.HeldDirectory;
import org.tapeq.protocol.PnfsIds;
import org.tapeq.protocol.RequestDirectory;

/**
 * Periodic work on the timer thread: the full rescan, and the poll of staged files still being written.
 *
 * <p>Design notes. The rescan finds what no event reported (changes made on other hosts of a shared
 * filesystem, events lost to an overflow) and cleans up after others. It lists {@code request/},
 * {@code in/} and {@code out/} once each and signals the tasks concerned; a flush whose link is missing
 * from the {@code out/} listing is found with generation marks: each rescan increments
 * {@link ProviderRuntime#generation}, names seen in {@code out/} get the new mark, and a linked flush with
 * an older mark was linked before the listing began and yet not listed, so its link is gone. Deadlines
 * are checked in the same pass. Entries nobody claims (request files and staged files left by a pool
 * restart, stale error and temporary files) are deleted once they are older than the orphan timeout,
 * counted from their last change or from this provider's start, whichever is later, so that a restarted
 * pool has time to re-send its requests and adopt them. A rescan costs O(files + requests); its period
 * stretches to at least 20 times its last duration so that huge queues cannot keep the timer busy.
 */
final class Rescanner {
    private static final Logger LOG = LoggerFactory.getLogger(Rescanner.class);
    private static final int MIN_DUTY_FACTOR = 20;

    private final ProviderRuntime rt;
    private final AtomicBoolean soon = new AtomicBoolean();
    private volatile long lastDurationMillis;
    private volatile long lastRescanAt;

    Rescanner(ProviderRuntime rt) {
        this.rt = rt;
    }

    void start() {
        rt.timer.execute(this::rescanAndReschedule);
        schedulePoll();
    }

    /** Asks for a rescan as soon as the duty limit allows (after lost events). */
    void requestSoon() {
        if (soon.compareAndSet(false, true)) {
            long wait = Math.max(0, lastRescanAt + MIN_DUTY_FACTOR * lastDurationMillis - rt.clock.millis());
            rt.timer.schedule(() -> {
                soon.set(false);
                rescan();
            }, wait, TimeUnit.MILLISECONDS);
        }
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

    void rescan() {
        if (rt.checkDirectory() != null) {
            rt.registry.tasks().forEach(Task::signal); // each fails: the directory is no longer served
            return;
        }
        long start = rt.clock.millis();
        int generation = ++rt.generation;
        try {
            scanRequestDirectory(start);
            scanInDirectory(start);
            scanOutDirectory(generation);
        } catch (IOException | RuntimeException e) {
            LOG.error("{}: rescan failed: {}", rt.directory, e.toString());
        }
        for (Task task : rt.registry.tasks()) {
            int f = task.flags();
            boolean linkGone = (f & Task.LINKED) != 0 && task.mark != generation;
            boolean expired = (f & Task.ACTIVATED) != 0 && task.request.getDeadline() <= start;
            if (linkGone || expired) {
                task.signal();
            }
        }
        lastRescanAt = start;
        lastDurationMillis = rt.clock.millis() - start;
        LOG.debug("{}: rescan of {} requests took {} ms", rt.directory, rt.registry.size(), lastDurationMillis);
    }

    private void scanRequestDirectory(long now) throws IOException {
        for (String name : rt.held.request().list()) {
            Path entry = rt.directory.requestDir().resolve(name);
            boolean isRequest = PnfsIds.isPnfsId(name);
            String id = isRequest ? name : RequestDirectory.pnfsIdOfErrorFile(name);
            Task task = id == null ? null : rt.registry.byFileName(id);
            if (task != null) {
                if (!isRequest) {
                    task.signal(); // an error file for a request in flight
                }
            } else {
                deleteIfOrphaned(entry, now);
            }
        }
    }

    private void scanInDirectory(long now) throws IOException {
        for (String name : rt.held.in().list()) {
            Path entry = rt.directory.inDir().resolve(name);
            boolean isData = PnfsIds.isPnfsId(name);
            String id = isData ? name : RequestDirectory.pnfsIdOfChecksumFile(name);
            if (id == null) {
                continue; // the daemon's temporary files are the daemon's business
            }
            Task task = rt.registry.byFileName(id);
            if (task != null) {
                if (isData) {
                    task.signal();
                }
            } else if (isData || !rt.held.in().exists(id)) {
                // a staged file nobody claims, or a checksum file whose data is gone
                deleteIfOrphaned(entry, now);
            }
        }
    }

    private void scanOutDirectory(int generation) throws IOException {
        for (String name : rt.held.out().list()) {
            Task task = rt.registry.byFileName(name);
            if (task != null) {
                task.mark = generation;
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
}
