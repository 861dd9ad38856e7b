package org.tapeq.scheduler.engine.lifecycle;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.CartridgeState;
import org.tapeq.scheduler.catalog.MigrationJob;
import org.tapeq.scheduler.catalog.RepackJob;
import org.tapeq.scheduler.engine.store.CatalogWriter;
import org.tapeq.scheduler.time.EventLoop;

/**
 * One media migration: repacks its cartridges one after another onto the target media type, each a background
 * repack like {@code tapeq cartridge repack VID --to MEDIA} (so under {@code maxBackgroundDrives}, yielding to user
 * work), and reports progress, an estimated end and, at the end, what moved and what did not.
 *
 * <p>Design notes. The migration does not drive tapes itself: every {@link #TICK_MILLIS} (and as soon as a repack
 * could not be queued) it looks at the repack of its current cartridge through {@link Repacks} and, once that
 * ended, records the outcome and queues the next. Its own durable state is only the {@link MigrationJob} row
 * (written at start and at the end); a cartridge's outcome is its {@link RepackJob}, so a restart rebuilds the
 * results from the catalog and the repack under way is resumed by {@link Repacks} itself. The rate behind the
 * estimate is measured: bytes its repacks moved in this run divided by the loop time since this run of it began
 * (reads, writes, mounts and waits for drives included), never a drive's nominal rate. Loop thread only.
 */
final class MigrationTask {

    private static final Logger LOG = LoggerFactory.getLogger(MigrationTask.class);

    /** How often the current repack is looked at. */
    static final long TICK_MILLIS = 10_000;

    private final LifecycleContext ctx;
    private final Repacks repacks;
    private MigrationJob job;
    private final Map<String, MigrationReport.CartridgeResult> results = new LinkedHashMap<>();
    private String current;
    private boolean cancelled;
    private String state = RepackJob.RUNNING;
    private String error;
    private long ended;
    private EventLoop.Timer timer;
    /** Loop time this run of the migration began, and the bytes moved before it, for the measured rate. */
    private final long runStart;
    private long bytesAtRunStart;
    /** Whether the bytes the resumed current repack moved in an earlier run are still to be added to it. */
    private boolean baselinePending;

    MigrationTask(LifecycleContext ctx, Repacks repacks, MigrationJob job) {
        this.ctx = ctx;
        this.repacks = repacks;
        this.job = job;
        this.runStart = ctx.loop().now();
    }

    String id() {
        return job.id();
    }

    MigrationJob job() {
        return job;
    }

    boolean ended() {
        return !RepackJob.RUNNING.equals(state);
    }

    /**
     * After a restart: each cartridge whose repack for this migration ended is a result already; one whose repack
     * is unfinished is the current one (resumed by {@link Repacks}).
     */
    void restore(List<RepackJob> repackJobs) {
        for (String barcode : job.cartridges()) {
            for (RepackJob r : repackJobs) {
                if (!r.source().equals(barcode) || r.requestedAt() < job.requestedAt()
                        || !job.toMedia().equals(r.targetMedia())) {
                    continue;
                }
                if (r.unfinished()) {
                    current = barcode;
                } else {
                    CartridgeRecord c = ctx.cartridges().get(barcode);
                    boolean emptied = c != null && c.state() == CartridgeState.EMPTY;
                    results.put(barcode, new MigrationReport.CartridgeResult(barcode, r.state(), emptied,
                            emptied ? r.bytesTotal() : 0, emptied ? null : r.summary()));
                }
            }
        }
    }

    /** Starts (or resumes) the work: the current repack is looked at now. */
    void begin() {
        for (MigrationReport.CartridgeResult c : results.values()) {
            bytesAtRunStart += c.bytesMoved();
        }
        baselinePending = current != null;
        schedule(0);
    }

    /** Cancels: the repack under way is cancelled (files moved stay moved), no other is started. */
    void cancel() {
        cancelled = true;
        if (current != null && repacks.unfinished(current)) {
            try {
                repacks.cancel(current);
            } catch (IllegalArgumentException e) {
                // it is still being started: it is cancelled at the next look
            }
        }
        if (current == null || !repacks.unfinished(current)) {
            end(RepackJob.CANCELLED, null);
        }
    }

    private void schedule(long delay) {
        if (timer != null) {
            timer.cancel();
        }
        timer = ctx.loop().schedule(delay, this::tick);
    }

    private void tick() {
        timer = null;
        if (ended()) {
            return;
        }
        if (current != null) {
            if (repacks.unfinished(current)) {
                RepackReport r = repacks.report(current);
                if (r != null && baselinePending) {
                    baselinePending = false;
                    bytesAtRunStart += r.bytesDone(); // moved before the restart, not in this run's rate
                }
                if (cancelled && r != null && !r.hasEnded()) {
                    repacks.cancel(current); // a cancel asked while it was being started
                }
                schedule(TICK_MILLIS);
                return;
            }
            RepackReport r = repacks.report(current);
            if (r != null && r.hasEnded()) {
                record(current, r);
            } else {
                results.put(current, new MigrationReport.CartridgeResult(current, RepackJob.FAILED, false, 0,
                        "its repack did not resume after the restart (see the log)"));
            }
            current = null;
        }
        if (cancelled) {
            end(RepackJob.CANCELLED, null);
            return;
        }
        String next = next();
        if (next == null) {
            end(RepackJob.DONE, null);
            return;
        }
        current = next;
        if (repacks.unfinished(next)) {
            // started by hand or by reclamation: its end is this cartridge's result
            LOG.info("Migration {}: cartridge {} is being repacked already; waiting for that repack", job.id(), next);
            schedule(TICK_MILLIS);
            return;
        }
        repacks.start(next, job.family(), job.toMedia()).whenComplete((r, e) -> {
            if (e != null) {
                String why = e.getMessage();
                LOG.warn("Migration {}: cartridge {} not repacked: {}", job.id(), next, why);
                results.put(next, new MigrationReport.CartridgeResult(next, RepackJob.FAILED, false, 0, why));
                current = null;
                schedule(0);
            } else {
                schedule(TICK_MILLIS);
            }
        });
    }

    /** The first cartridge not tried yet, or null. */
    private String next() {
        for (String barcode : job.cartridges()) {
            if (!results.containsKey(barcode)) {
                return barcode;
            }
        }
        return null;
    }

    private void record(String barcode, RepackReport r) {
        String why = r.emptied() ? null : r.error() != null ? r.error()
                : r.filesFailed() + " files could not be moved; the cartridge was not emptied";
        results.put(barcode, new MigrationReport.CartridgeResult(barcode, r.state(), r.emptied(), r.bytesDone(), why));
        LOG.info("Migration {}: cartridge {} {}{}", job.id(), barcode, r.emptied() ? "emptied" : r.state(),
                why == null ? "" : ": " + why);
    }

    private void end(String endState, String why) {
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
        state = endState;
        error = why;
        ended = Math.max(1, ctx.loop().now());
        MigrationReport report = report();
        String summary = summary(report);
        job = job.ended(endState, ctx.loop().now(), summary);
        MigrationJob record = job;
        ctx.writer().submit(CatalogWriter.Kind.CARTRIDGE, () -> ctx.catalog().putMigrationJob(record),
                "record the end of migration " + job.id());
        LOG.info("Migration {} {}: {}", job.id(), endState, summary);
    }

    private static String summary(MigrationReport r) {
        StringBuilder s = new StringBuilder();
        s.append(r.cartridgesDone()).append(" of ").append(r.cartridgesTotal()).append(" cartridges emptied, ")
                .append(r.bytesDone()).append(" bytes moved");
        int named = 0;
        for (MigrationReport.CartridgeResult c : r.results()) {
            if (!c.emptied() && named++ < VerifyReport.LISTED) {
                s.append("; ").append(c.barcode()).append(": ").append(c.why());
            }
        }
        return s.toString();
    }

    MigrationReport report() {
        int done = 0;
        int failed = 0;
        long bytes = 0;
        for (MigrationReport.CartridgeResult c : results.values()) {
            done += c.emptied() ? 1 : 0;
            failed += c.emptied() ? 0 : 1;
            bytes += c.bytesMoved();
        }
        if (current != null && !results.containsKey(current)) {
            RepackReport r = repacks.report(current);
            if (r != null) {
                bytes += r.bytesDone();
            }
        }
        long now = ctx.loop().now();
        long elapsed = now - runStart;
        long rate = !baselinePending && elapsed > 0 && bytes > bytesAtRunStart
                ? (bytes - bytesAtRunStart) * 1000 / elapsed : 0;
        long left = Math.max(0, job.bytesTotal() - bytes);
        long eta = ended() ? ended : rate > 0 ? now + (long) Math.ceil(left * 1000d / rate) : -1;
        return new MigrationReport(job.id(), job.fromMedia(), job.toMedia(), job.family(), state,
                job.cartridges().size(), done, failed, ended() ? null : current, job.bytesTotal(), bytes, rate, eta,
                job.requestedAt(), ended, new ArrayList<>(results.values()), error);
    }
}
