package org.tapeq.scheduler.engine.lifecycle;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.CartridgeState;
import org.tapeq.scheduler.catalog.MigrationJob;
import org.tapeq.scheduler.catalog.RepackJob;
import org.tapeq.scheduler.engine.store.CatalogWriter;
import org.tapeq.scheduler.time.EventLoop;

/**
 * One media migration: repacks its cartridges onto the target media type, several at once, each a background repack
 * like {@code tapeq cartridge repack VID --to MEDIA} (so under {@code maxBackgroundDrives}, yielding to user work),
 * and reports progress, an estimated end and, at the end, what moved and what did not.
 *
 * <p>Design notes. The migration does not drive tapes itself: every {@link #TICK_MILLIS} (and as soon as a repack
 * could not be queued) it looks at the repacks of the cartridges it has in flight through {@link Repacks}, records
 * the outcome of each that ended and queues the next cartridges until {@link #slots} repacks are in flight (each
 * repack has its own target cartridge, {@link Repacks#mayTarget}, and its own spool batch, so they never wait on
 * each other; they share the background drives). Its own durable state is only the {@link MigrationJob} row
 * (written at start and at the end); a cartridge's outcome is its {@link RepackJob}, so a restart rebuilds the
 * results from the catalog and the repacks under way are resumed by {@link Repacks} itself. The rate behind the
 * estimate is measured: bytes all its repacks moved in this run divided by the loop time since this run of it
 * began (reads, writes, mounts and waits for drives included), never a drive's nominal rate. Loop thread only.
 */
final class MigrationTask {

    private static final Logger LOG = LoggerFactory.getLogger(MigrationTask.class);

    /** How often the repacks in flight are looked at. */
    static final long TICK_MILLIS = 10_000;

    private final LifecycleContext ctx;
    private final Repacks repacks;
    /** Repacks it keeps in flight at most ({@link Migrations#slots}). */
    private final IntSupplier slots;
    private MigrationJob job;
    private final Map<String, MigrationReport.CartridgeResult> results = new LinkedHashMap<>();
    /** The cartridges being repacked for it now, in the order they were started. */
    private final Set<String> moving = new LinkedHashSet<>();
    private boolean cancelled;
    private String state = RepackJob.RUNNING;
    private String error;
    private long ended;
    private EventLoop.Timer timer;
    /** Loop time this run of the migration began, and the bytes moved before it, for the measured rate. */
    private final long runStart;
    private long bytesAtRunStart;
    /** Resumed repacks whose bytes moved in an earlier run are still to be added to {@link #bytesAtRunStart}. */
    private final Set<String> baselinePending = new HashSet<>();

    MigrationTask(LifecycleContext ctx, Repacks repacks, MigrationJob job, IntSupplier slots) {
        this.ctx = ctx;
        this.repacks = repacks;
        this.job = job;
        this.slots = slots;
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
     * After a restart: each cartridge whose repack for this migration ended is a result already; each one whose
     * repack is unfinished is in flight again (resumed by {@link Repacks}).
     */
    void restore(List<RepackJob> repackJobs) {
        for (String barcode : job.cartridges()) {
            for (RepackJob r : repackJobs) {
                if (!r.source().equals(barcode) || r.requestedAt() < job.requestedAt()
                        || !job.toMedia().equals(r.targetMedia())) {
                    continue;
                }
                if (r.unfinished()) {
                    moving.add(barcode);
                } else {
                    CartridgeRecord c = ctx.cartridges().get(barcode);
                    boolean emptied = c != null && c.state() == CartridgeState.EMPTY;
                    results.put(barcode, new MigrationReport.CartridgeResult(barcode, r.state(), emptied,
                            emptied ? r.bytesTotal() : 0, emptied ? null : r.summary()));
                }
            }
        }
    }

    /** Starts (or resumes) the work: the repacks in flight are looked at now. */
    void begin() {
        for (MigrationReport.CartridgeResult c : results.values()) {
            bytesAtRunStart += c.bytesMoved();
        }
        baselinePending.addAll(moving);
        schedule(0);
    }

    /** Cancels: the repacks under way are cancelled (files moved stay moved), no other is started. */
    void cancel() {
        cancelled = true;
        boolean inFlight = false;
        for (String barcode : moving) {
            if (repacks.unfinished(barcode)) {
                inFlight = true;
                try {
                    repacks.cancel(barcode);
                } catch (IllegalArgumentException e) {
                    // it is still being started: it is cancelled at the next look
                }
            }
        }
        if (!inFlight) {
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
        for (String barcode : List.copyOf(moving)) {
            RepackReport r = repacks.report(barcode);
            if (repacks.unfinished(barcode)) {
                if (r != null && baselinePending.remove(barcode)) {
                    bytesAtRunStart += r.bytesDone(); // moved before the restart, not in this run's rate
                }
                if (cancelled && r != null && !r.hasEnded()) {
                    repacks.cancel(barcode); // a cancel asked while it was being started
                }
                continue;
            }
            if (r != null && r.hasEnded()) {
                record(barcode, r);
            } else {
                results.put(barcode, new MigrationReport.CartridgeResult(barcode, RepackJob.FAILED, false, 0,
                        "its repack did not resume after the restart (see the log)"));
            }
            baselinePending.remove(barcode);
            moving.remove(barcode);
        }
        if (cancelled) {
            if (moving.isEmpty()) {
                end(RepackJob.CANCELLED, null);
            } else {
                schedule(TICK_MILLIS);
            }
            return;
        }
        String next;
        while (moving.size() < Math.max(1, slots.getAsInt()) && (next = next()) != null) {
            startRepack(next);
        }
        if (moving.isEmpty() && !waiting()) {
            end(RepackJob.DONE, null);
        } else if (timer == null) {
            schedule(TICK_MILLIS);
        }
    }

    /** Puts {@code next} in flight: its repack is queued, or, if one is under way already, waited for. */
    private void startRepack(String next) {
        moving.add(next);
        if (repacks.unfinished(next)) {
            // started by hand or by reclamation: its end is this cartridge's result
            LOG.info("Migration {}: cartridge {} is being repacked already; waiting for that repack", job.id(), next);
            return;
        }
        repacks.start(next, job.family(), job.toMedia()).whenComplete((r, e) -> {
            if (e != null) {
                String why = e.getMessage();
                LOG.warn("Migration {}: cartridge {} not repacked: {}", job.id(), next, why);
                results.put(next, new MigrationReport.CartridgeResult(next, RepackJob.FAILED, false, 0, why));
                moving.remove(next);
                schedule(0);
            }
        });
    }

    /**
     * The first cartridge neither tried nor in flight, or null; one a verification has in hand waits for its end
     * (a repack of it would be refused).
     */
    private String next() {
        for (String barcode : job.cartridges()) {
            if (!results.containsKey(barcode) && !moving.contains(barcode) && !repacks.verifying(barcode)) {
                return barcode;
            }
        }
        return null;
    }

    /** Whether a cartridge neither tried nor in flight is left (one {@link #next} passes over while verified). */
    private boolean waiting() {
        for (String barcode : job.cartridges()) {
            if (!results.containsKey(barcode) && !moving.contains(barcode)) {
                return true;
            }
        }
        return false;
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
        for (String barcode : moving) {
            RepackReport r = results.containsKey(barcode) ? null : repacks.report(barcode);
            if (r != null) {
                bytes += r.bytesDone();
            }
        }
        long now = ctx.loop().now();
        long elapsed = now - runStart;
        long rate = baselinePending.isEmpty() && elapsed > 0 && bytes > bytesAtRunStart
                ? (bytes - bytesAtRunStart) * 1000 / elapsed : 0;
        long left = Math.max(0, job.bytesTotal() - bytes);
        List<String> inFlight = ended() ? List.of() : List.copyOf(moving);
        long eta = ended() ? ended : rate > 0 ? now + (long) Math.ceil(left * 1000d / rate) : -1;
        return new MigrationReport(job.id(), job.fromMedia(), job.toMedia(), job.family(), state,
                job.cartridges().size(), done, failed, inFlight.isEmpty() ? null : inFlight.get(0), inFlight,
                job.bytesTotal(), bytes, rate, eta, job.requestedAt(), ended, new ArrayList<>(results.values()), error);
    }
}
