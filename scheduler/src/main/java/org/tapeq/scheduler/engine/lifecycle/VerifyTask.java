package org.tapeq.scheduler.engine.lifecycle;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.CartridgeState;
import org.tapeq.scheduler.catalog.Verification;
import org.tapeq.scheduler.engine.drive.BackgroundTask;
import org.tapeq.scheduler.engine.drive.DriveRunner;
import org.tapeq.scheduler.engine.drive.MemberChecksums;
import org.tapeq.scheduler.engine.store.CatalogWriter;
import org.tapeq.scheduler.format.Checksums;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.FileRecord;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.Completion;

/**
 * Verifies one cartridge as background work: checks its label on every mount, then reads each aggregate of its
 * {@link VerifyPlan} whole and compares every live member's Adler-32 with the catalog's checksum.
 *
 * <p>Design notes. Runs on the loop, in slices ({@link BackgroundTask}): after each aggregate after the first of a
 * slice it asks whether to yield (user work waits for the drive, the drive was taken down, the cartridge was
 * disabled), and if so frees the drive and is queued again; the next
 * slice goes on with the next aggregate, on whichever drive runs it. A member differing from the catalog is
 * {@code bad}; a member not delivered whole (a media error on its tape file, a tape file shorter than recorded)
 * is {@code unreadable} and the verification goes on with the next aggregate. Any other fault (drive, robot,
 * label) stops it as {@code failed}: it says nothing about the files. At the end the drive is freed ({@code
 * recording}: the catalog writer may be waiting out an outage) and the result is recorded in the
 * catalog (the last verification of the cartridge, with every bad and unreadable file; each is also logged at
 * WARN when found); once it is recorded, a cartridge with a bad or unreadable file becomes {@code SUSPECT}
 * (read-only) with the first files named in its reason. Checksums are computed by the backend's copy
 * thread into a {@link MemberChecksums} and read on the loop once the read completed.
 */
final class VerifyTask implements BackgroundTask {

    private static final Logger LOG = LoggerFactory.getLogger(VerifyTask.class);
    /** Files named in a SUSPECT cartridge's reason and the summary; the catalog's findings name all. */
    static final int NAMED_IN_REASON = 10;
    /** The reason of a verification the operator cancelled. */
    static final String CANCELLED = "cancelled by the operator";

    private final LifecycleContext ctx;
    private final String barcode;
    private final VerifyPlan plan;
    private final long started;
    private final List<VerifyReport.FileResult> bad = new ArrayList<>();
    private final List<VerifyReport.FileResult> unreadable = new ArrayList<>();
    private String state = "queued";
    private int next;
    private int good;
    private int unchecked;
    /** Whether the label of the cartridge in this slice's drive was checked since its mount. */
    private boolean labelOk;
    private long ended;
    private String error;
    private boolean cancelRequested;

    VerifyTask(LifecycleContext ctx, String barcode, VerifyPlan plan) {
        this.ctx = ctx;
        this.barcode = barcode;
        this.plan = plan;
        this.started = ctx.loop().now();
    }

    @Override
    public String barcode() {
        return barcode;
    }

    /** Its progress, or its result once ended. */
    VerifyReport report() {
        return new VerifyReport(barcode, state, next, plan.units().size(), plan.sampled(), good, unchecked,
                bad.size(), unreadable.size(), first(bad), first(unreadable), started, ended, error);
    }

    private static List<VerifyReport.FileResult> first(List<VerifyReport.FileResult> results) {
        return List.copyOf(results.subList(0, Math.min(VerifyReport.LISTED, results.size())));
    }

    boolean ended() {
        return ended != 0;
    }

    @Override
    public void runSlice(DriveRunner drive, Slice slice) {
        state = "running";
        // once per mount, not per verification: the tape in a fresh mount may not be the one read before
        labelOk = drive.labelChecked();
        if (labelOk) {
            readNext(drive, slice, true);
            return;
        }
        MountedLabel.check(ctx, drive, barcode, step(drive, slice, v -> {
            labelOk = true;
            readNext(drive, slice, true);
        }));
    }

    @Override
    public void failed(TapeFault fault) {
        end("failed", "cannot mount " + barcode + ": " + fault.getMessage());
    }

    @Override
    public void dropped(String why) {
        LOG.warn("Verification of {} ended: {}", barcode, why);
        end(why.equals(CANCELLED) ? "cancelled" : "failed", why);
    }

    /** Asks a running slice to stop at the next aggregate boundary, as {@code cancelled}. */
    void cancelRunning() {
        cancelRequested = true;
    }

    private void readNext(DriveRunner drive, Slice slice, boolean firstOfSlice) {
        if (cancelRequested) {
            LOG.warn("Verification of {} ended: {} after {} of {} aggregates", barcode, CANCELLED, next,
                    plan.units().size());
            drive.adminDone(labelOk);
            end("cancelled", CANCELLED);
            slice.finished();
            return;
        }
        if (next == plan.units().size()) {
            finish(drive, slice);
            return;
        }
        if (!firstOfSlice && slice.shouldYield()) {
            LOG.info("Verification of {}: giving drive {} back after {} of {} aggregates", barcode,
                    drive.id(), next, plan.units().size());
            state = "queued";
            drive.adminDone(labelOk);
            slice.yielded();
            return;
        }
        VerifyPlan.Unit unit = plan.units().get(next);
        List<MemberChecksums.Member> members = new ArrayList<>();
        for (FileRecord f : unit.members()) {
            members.add(new MemberChecksums.Member(f.offset(), f.size(), f.checksum()));
        }
        MemberChecksums sums = new MemberChecksums(members);
        String id = drive.id();
        Completion<Long> read = new Completion<>() {
            @Override
            public void succeeded(Long delivered) {
                judge(unit, sums, delivered);
                next++;
                readNext(drive, slice, false);
            }

            @Override
            public void failed(TapeFault fault) {
                unitFailed(drive, slice, unit, fault);
            }
        };
        ctx.library().locate(id, unit.aggregate().startBlock(), new Completion<>() {
            @Override
            public void succeeded(Void v) {
                ctx.library().read(id, 0, unit.aggregate().bytes(), () -> sums, read);
            }

            @Override
            public void failed(TapeFault fault) {
                unitFailed(drive, slice, unit, fault);
            }
        });
    }

    private void judge(VerifyPlan.Unit unit, MemberChecksums sums, long delivered) {
        int tapeFile = unit.aggregate().tapeFile();
        for (int i = 0; i < unit.members().size(); i++) {
            FileRecord f = unit.members().get(i);
            if (!sums.complete(i)) {
                found(unreadable, f.pnfsid(), tapeFile, "tape file " + tapeFile + " delivered " + delivered
                        + " bytes, the member ends at byte " + (f.offset() + f.size()));
            } else if (sums.contradicts(i)) {
                found(bad, f.pnfsid(), tapeFile, "read " + sums.checksum(i) + ", the catalog has " + f.checksum());
            } else if (!Checksums.isAdler32(f.checksum())) {
                unchecked++;
            } else {
                good++;
            }
        }
    }

    /** Notes a bad or unreadable file, and logs it: the report lists only the first ones. */
    private void found(List<VerifyReport.FileResult> kind, String pnfsid, int tapeFile, String reason) {
        LOG.warn("Verification of {}: file {} on tape file {} {}: {}", barcode, pnfsid, tapeFile,
                kind == bad ? "bad" : "unreadable", reason);
        kind.add(new VerifyReport.FileResult(pnfsid, tapeFile, reason));
    }

    /** A fault reading one aggregate: the cartridge's (its files unreadable, go on) or not (stop). */
    private void unitFailed(DriveRunner drive, Slice slice, VerifyPlan.Unit unit, TapeFault fault) {
        if (fault.kind() != FaultKind.MEDIA && fault.kind() != FaultKind.NOT_FOUND) {
            stop(drive, slice, fault);
            return;
        }
        LOG.warn("Verification of {}: tape file {} unreadable: {}", barcode, unit.aggregate().tapeFile(),
                fault.getMessage());
        for (FileRecord f : unit.members()) {
            found(unreadable, f.pnfsid(), unit.aggregate().tapeFile(), fault.getMessage());
        }
        next++;
        readNext(drive, slice, false);
    }

    private void finish(DriveRunner drive, Slice slice) {
        boolean clean = bad.isEmpty() && unreadable.isEmpty();
        // "all good" only when every file read was compared: unchecked ones are not known to be good
        String summary = !clean ? summary() : unchecked == 0 ? "all good" : "no bad or unreadable file; " + unchecked
                + " of " + (good + unchecked) + " not checked (the catalog's checksum is not an Adler-32)";
        List<Verification.Finding> findings = new ArrayList<>(bad.size() + unreadable.size());
        bad.forEach(r -> findings.add(new Verification.Finding(r.pnfsid(), r.tapeFile(), true, r.reason())));
        unreadable.forEach(r -> findings.add(new Verification.Finding(r.pnfsid(), r.tapeFile(), false, r.reason())));
        Verification v = new Verification(barcode, ctx.loop().now(), plan.sampled(), good + unchecked, bad.size(),
                unreadable.size(), summary, findings);
        // The drive is free before the record is written: the catalog writer waits out an outage, and the
        // drive is not to wait with it. The cartridge becomes SUSPECT once the record is in the catalog.
        state = "recording";
        drive.adminDone(labelOk);
        slice.finished();
        ctx.writer().submit(CatalogWriter.Kind.CARTRIDGE, () -> {
            ctx.catalog().recordVerification(v);
            return null;
        }, new CatalogWriter.Done<>() {
            @Override
            public void succeeded(Object value) {
                LOG.info("Verification of {}: {} aggregates read, {} files good, {} unchecked, {} bad, {} unreadable",
                        barcode, next, good, unchecked, bad.size(), unreadable.size());
                if (!clean) {
                    CartridgeRecord c = ctx.cartridges().get(barcode);
                    if (c != null && c.state() != CartridgeState.SUSPECT && c.state() != CartridgeState.FOREIGN) {
                        ctx.queues().updateCartridge(c.withState(CartridgeState.SUSPECT, "verification: " + summary));
                    }
                }
                end("done", null);
            }

            @Override
            public void failed(RuntimeException e) {
                LOG.warn("Verification of {}: cannot record it in the catalog: {}", barcode, e.toString());
                end("failed", "cannot record the verification of " + barcode + " in the catalog (" + bad.size()
                        + " bad, " + unreadable.size() + " unreadable, each logged): " + e.getMessage());
            }
        });
    }

    /** The bad and unreadable files, the first {@link #NAMED_IN_REASON} named. */
    private String summary() {
        List<String> named = new ArrayList<>();
        for (VerifyReport.FileResult r : bad) {
            named.add(r.pnfsid() + " (bad checksum)");
        }
        for (VerifyReport.FileResult r : unreadable) {
            named.add(r.pnfsid() + " (unreadable)");
        }
        String list = String.join(", ", named.subList(0, Math.min(NAMED_IN_REASON, named.size())));
        return bad.size() + " bad, " + unreadable.size() + " unreadable: " + list
                + (named.size() > NAMED_IN_REASON ? " and " + (named.size() - NAMED_IN_REASON) + " more" : "");
    }

    private void stop(DriveRunner drive, Slice slice, TapeFault fault) {
        LOG.warn("Verification of {} stopped: {}", barcode, fault.toString());
        drive.adminDone(labelOk);
        end("failed", fault.getMessage());
        slice.finished();
    }

    private void end(String endState, String why) {
        state = endState;
        error = why;
        ended = ctx.loop().now();
    }

    private <T> Completion<T> step(DriveRunner drive, Slice slice, Consumer<T> then) {
        return new Completion<>() {
            @Override
            public void succeeded(T value) {
                then.accept(value);
            }

            @Override
            public void failed(TapeFault fault) {
                stop(drive, slice, fault);
            }
        };
    }
}
