package org.tapeq.scheduler.engine.lifecycle;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.CartridgeState;
import org.tapeq.scheduler.catalog.MigrationJob;
import org.tapeq.scheduler.catalog.RepackJob;
import org.tapeq.scheduler.engine.store.CatalogWriter;
import org.tapeq.scheduler.model.MediaType;

/**
 * The media migrations of this run ({@code tapeq migrate}), on the loop: starts one (one at a time, answered once
 * the catalog holds it), resumes the one the catalog holds unfinished at start, cancels, and keeps the reports for
 * status (the running one and the last {@link Verifications#KEEP_ENDED} ended ones).
 */
public final class Migrations {

    private static final Logger LOG = LoggerFactory.getLogger(Migrations.class);
    /** The reason a migration closes its old media's cartridges with, followed by the target media's name. */
    static final String CLOSED_REASON = "closed for writing: being migrated to ";

    private final LifecycleContext ctx;
    private final Repacks repacks;
    /** {@code scheduler.migrationRepacks}: repacks a migration keeps in flight at most (0: one per background drive). */
    private final int maxRepacks;
    private final Map<String, MigrationTask> latest = new LinkedHashMap<>();
    /** The migration whose start the catalog is recording (not yet a task), or null. */
    private MigrationJob recording;

    public Migrations(LifecycleContext ctx, Repacks repacks, int maxRepacks) {
        this.ctx = ctx;
        this.repacks = repacks;
        this.maxRepacks = maxRepacks;
        repacks.neverTarget(this::movingOff);
        ctx.cartridges().closeForWriting(this::movingOff);
    }

    /**
     * Starts migrating every cartridge of media {@code from} (of {@code family} only, when not null) that holds
     * live files onto cartridges of media {@code to} of the same family. Every cartridge of {@code from} in that
     * scope, empty ones too, is closed for writing at once (new files go to the other media) and each with live
     * files is repacked, {@link #slots} of them at once. The future ends with its first report once the catalog holds the migration
     * (a crash after the answer cannot lose it), or fails if the catalog did not record it (the cartridges closed
     * for it are reopened, nothing is started).
     *
     * @throws IllegalArgumentException unknown media type, the same media twice, nothing of {@code from} in the
     *                                  scope, or no cartridge of {@code to} labelled for a family to migrate
     * @throws IllegalStateException    a migration is running, background work is off, the catalog unreachable
     */
    public CompletableFuture<MigrationReport> start(String from, String to, String family) {
        MediaType source = MediaType.byName(from).orElseThrow(() -> new IllegalArgumentException(
                "unknown media type '" + from + "' (known: LTO-8, LTO-9, TS1160)"));
        MediaType target = MediaType.byName(to).orElseThrow(() -> new IllegalArgumentException(
                "unknown media type '" + to + "' (known: LTO-8, LTO-9, TS1160)"));
        if (source.equals(target)) {
            throw new IllegalArgumentException("migrate: source and target media are both " + source.name());
        }
        if (recording != null) {
            // not yet a task: a cancel could not reach it; during a catalog outage its record waits for the catalog
            throw new IllegalStateException("migration " + recording.id() + " is being recorded (the catalog has not"
                    + " confirmed its start yet); see tapeq status, and ask again once it has started or failed");
        }
        if (!running().isEmpty()) {
            throw new IllegalStateException("migration " + running().get(0).id() + " is running; cancel it first"
                    + " (tapeq migrate --cancel)");
        }
        if (ctx.background().maxDrives() == 0) {
            throw new IllegalStateException("migrate: background work is off (scheduler.maxBackgroundDrives is 0),"
                    + " the migration would never run");
        }
        if (!ctx.writer().reachable()) {
            throw new IllegalStateException("migrate: the catalog is unreachable; ask again once it is back");
        }
        List<CartridgeRecord> planned = new ArrayList<>();
        long bytes = 0;
        for (CartridgeRecord c : ctx.cartridges().all()) {
            if (inScope(c, source.name(), family) && live(c) > 0) {
                planned.add(c);
                bytes += live(c);
            }
        }
        if (planned.isEmpty()) {
            throw new IllegalArgumentException("migrate: no " + source.name() + " cartridge"
                    + (family == null ? "" : " of family " + family) + " holds live files");
        }
        for (CartridgeRecord c : planned) {
            boolean targets = false;
            for (CartridgeRecord r : ctx.cartridges().all()) {
                targets |= c.family() != null && c.family().equals(r.family()) && Repacks.ofMedia(r, target.name());
            }
            if (!targets) {
                throw new IllegalArgumentException("migrate: no " + target.name() + " cartridge is labelled for"
                        + " family " + c.family() + " of " + c.barcode() + " (tapeq cartridge label)");
            }
        }
        planned.sort(Comparator.comparing(CartridgeRecord::barcode));
        long now = ctx.loop().now();
        MigrationJob job = new MigrationJob(source.barcodeSuffix() + "-" + target.barcodeSuffix() + "-" + now,
                source.name(), target.name(), family, RepackJob.RUNNING, now, 0,
                planned.stream().map(CartridgeRecord::barcode).toList(), bytes, null);
        List<CartridgeRecord> closed = new ArrayList<>();
        for (CartridgeRecord c : ctx.cartridges().all()) {
            // every cartridge of the old media in scope, empty ones too: no new file lands on the old media
            if (inScope(c, source.name(), family) && c.state().writable()) {
                closed.add(c);
                ctx.queues().updateCartridge(c.withState(CartridgeState.FULL, CLOSED_REASON + target.name()));
            }
        }
        CompletableFuture<MigrationReport> started = new CompletableFuture<>();
        recording = job;
        ctx.writer().submit(CatalogWriter.Kind.CARTRIDGE, () -> {
            ctx.catalog().putMigrationJob(job);
            return null;
        }, new CatalogWriter.Done<Object>() {
            @Override
            public void succeeded(Object v) {
                recording = null;
                LOG.info("Migration {} started: {} {} cartridges ({} bytes) onto {}", job.id(), planned.size(),
                        job.fromMedia(), job.bytesTotal(), job.toMedia());
                MigrationTask task = new MigrationTask(ctx, repacks, job, Migrations.this::slots);
                keep(task);
                task.begin();
                started.complete(task.report());
            }

            @Override
            public void failed(RuntimeException e) {
                recording = null;
                for (CartridgeRecord was : closed) {
                    CartridgeRecord now = ctx.cartridges().get(was.barcode());
                    if (now != null && now.state() == CartridgeState.FULL) {
                        ctx.queues().updateCartridge(now.withState(was.state(), was.reason())); // reopened as it was
                    }
                }
                started.completeExceptionally(new IllegalStateException("migrate: the catalog did not record"
                        + " migration " + job.id() + ", it is not started: " + e.getMessage(), e));
            }
        });
        return started;
    }

    /**
     * Repacks a migration keeps in flight: one per drive background work may use ({@code maxBackgroundDrives}),
     * fewer when {@code scheduler.migrationRepacks} says so; at least one. Each holds its own spool batch and
     * target cartridge; while user work waits, the ones beyond the drives background work keeps
     * ({@code scheduler.backgroundShare}) wait for a drive.
     */
    int slots() {
        int drives = ctx.background().maxDrives();
        return Math.max(1, maxRepacks > 0 ? Math.min(maxRepacks, drives) : drives);
    }

    /** The migrations running, and the one whose start the catalog is recording. */
    private List<MigrationJob> running() {
        List<MigrationJob> jobs = new ArrayList<>();
        for (MigrationTask t : latest.values()) {
            if (!t.ended()) {
                jobs.add(t.job());
            }
        }
        if (recording != null) {
            jobs.add(recording);
        }
        return jobs;
    }

    /**
     * Whether a running migration is moving data off the cartridge's media (the cartridge is of its old media and,
     * when the migration has a family, of that family): such a cartridge is the migration's to empty, never a
     * repack's target nor a reclamation candidate.
     */
    public boolean movingOff(CartridgeRecord c) {
        for (MigrationJob job : running()) {
            if (inScope(c, job.fromMedia(), job.family())) {
                return true;
            }
        }
        return false;
    }

    private static boolean inScope(CartridgeRecord c, String media, String family) {
        return Repacks.ofMedia(c, media) && (family == null || family.equals(c.family()));
    }

    /**
     * Why a relabel of {@code c} for {@code family} must wait, or null: a running migration takes every cartridge
     * of its old media (of its family, when it has one) out of writing, and a relabel would make one appendable.
     */
    public String relabelRefusal(CartridgeRecord c, String family) {
        return refusal("relabel", c, family);
    }

    /** Why {@code tapeq cartridge label} of {@code c} for {@code family} must wait, or null: as a relabel. */
    public String labelRefusal(CartridgeRecord c, String family) {
        return refusal("label", c, family);
    }

    private String refusal(String what, CartridgeRecord c, String family) {
        for (MigrationJob job : running()) {
            if (Repacks.ofMedia(c, job.fromMedia()) && (job.family() == null || job.family().equals(family))) {
                return what + " " + c.barcode() + ": migration " + job.id() + " is moving family "
                        + (job.family() == null ? "data" : job.family()) + " off " + job.fromMedia()
                        + "; " + what + " it once the migration has ended, or for another family";
            }
        }
        return null;
    }

    /** Live bytes of a cartridge (written minus reclaimable), 0 for one without data. */
    private static long live(CartridgeRecord c) {
        if (c.state() == CartridgeState.EMPTY || c.state() == CartridgeState.BLANK
                || c.state() == CartridgeState.FOREIGN || c.state() == CartridgeState.UNKNOWN) {
            return 0;
        }
        return Math.max(0, c.usedBytes() - c.reclaimableBytes());
    }

    /**
     * Resumes the migrations the catalog holds unfinished (a restart, kill -9 included), after the repacks were
     * resumed ({@link Repacks#resume}). Called once at start, on the loop.
     */
    public void resume(List<MigrationJob> jobs, List<RepackJob> repackJobs) {
        for (MigrationJob job : jobs) {
            if (!job.unfinished()) {
                continue;
            }
            LOG.info("Resuming migration {} ({} cartridges {} to {})", job.id(), job.cartridges().size(),
                    job.fromMedia(), job.toMedia());
            MigrationTask task = new MigrationTask(ctx, repacks, job, this::slots);
            task.restore(repackJobs);
            keep(task);
            task.begin();
        }
        reopenUnrecorded(jobs);
    }

    /**
     * Reopens the cartridges closed for a migration whose record never reached the catalog (a crash between the
     * closes and the record, kill -9 included): closed with {@link #CLOSED_REASON} but in the scope of no migration
     * the catalog holds, ended ones included (after a cancel the cartridges not reached stay closed on purpose).
     */
    private void reopenUnrecorded(List<MigrationJob> jobs) {
        for (CartridgeRecord c : ctx.cartridges().all()) {
            if (c.state() != CartridgeState.FULL || c.reason() == null || !c.reason().startsWith(CLOSED_REASON)) {
                continue;
            }
            boolean recorded = false;
            for (MigrationJob job : jobs) {
                recorded |= inScope(c, job.fromMedia(), job.family());
            }
            if (!recorded) {
                LOG.warn("Cartridge {} was {} but no migration of it was recorded (a crash while it started):"
                        + " reopened for writing", c.barcode(), c.reason());
                ctx.queues().updateCartridge(c.withState(CartridgeState.APPENDABLE, null));
            }
        }
    }

    /**
     * Cancels the running migration: the repacks under way stop at the end of its current read or write (files
     * moved stay moved), no further cartridge is started. Returns its report.
     *
     * @throws IllegalArgumentException if none is running
     */
    public MigrationReport cancel() {
        for (MigrationTask t : latest.values()) {
            if (!t.ended()) {
                t.cancel();
                return t.report();
            }
        }
        throw new IllegalArgumentException("no migration to cancel");
    }

    /** The migrations of this run (and the one resumed at start), oldest first. */
    public List<MigrationReport> reports() {
        List<MigrationReport> all = new ArrayList<>(latest.size());
        for (MigrationTask t : latest.values()) {
            all.add(t.report());
        }
        return all;
    }

    private void keep(MigrationTask task) {
        latest.put(task.id(), task);
        int ended = 0;
        for (MigrationTask t : latest.values()) {
            ended += t.ended() ? 1 : 0;
        }
        for (var it = latest.values().iterator(); it.hasNext() && ended > Verifications.KEEP_ENDED; ) {
            if (it.next().ended()) {
                it.remove();
                ended--;
            }
        }
    }
}
