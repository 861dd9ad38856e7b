package org.tapeq.scheduler.engine.drive;

import java.util.ArrayList;
import java.util.List;

import org.tapeq.scheduler.engine.queue.PendingAggregate;
import org.tapeq.scheduler.format.AggregatePlan;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.FlushCheck;
import org.tapeq.scheduler.tape.WrittenFile;

/**
 * The tape files one drive wrote with buffered tape marks since its last flush: their aggregates wait, neither
 * committed nor acknowledged, until the drive's next flush.
 *
 * <p>Design notes. A tape file appended with a buffered mark ({@code TapeLibrary#appendBuffered}) may still sit in
 * the drive's buffer, so it is not durable until a synchronous flush ({@code TapeLibrary#flush}) succeeded. The
 * durability rule stays the one of synchronous marks: a flush request is acknowledged only once its bytes are on
 * tape and its catalog record is committed. So the drive holds its written aggregates here and flushes
 * ({@link #due}) when the held files or bytes reach the configured limit ({@code flushFiles}, {@code flushBytes}),
 * when the oldest has waited {@code flushHold} (checked between the drive's operations: the drive runs one at a
 * time, so a timer could not flush sooner), and whenever it has nothing more to write, which is before every
 * unload and before any read: a drive never idles, reads or unloads with writes held. After the flush the held
 * aggregates are committed together (the catalog writer groups the commits into one transaction) and only then
 * acknowledged. A failed write while files are held flushes them first (a full tape keeps what it took) and
 * commits them before the write's own fault is answered. The flush names the cartridge and the end of data the held
 * files left ({@link #check}) and the library fails it when the drive holds another cartridge or another end of data:
 * a drive reset, power-cycled or given another cartridge since the appends still answers the synchronous mark, and
 * only this check tells that the held files are gone. A failed flush fails its files like a failed write: they
 * are written again, and the tape files already on the tape stay unrecorded, as after a failed commit; so do the
 * files of a drive whose mover was lost. A crash before the flush acknowledges nothing for the same reason.
 * Owned by the drive's {@link WriteStep}, on the loop.
 */
final class HeldWrites {

    /** A tape file written with a buffered mark, its aggregate not yet committed; {@code at}: loop time written. */
    record Held(PendingAggregate agg, AggregatePlan plan, WrittenFile written, String barcode, long at) {
    }

    /** What the write step does with the held files once the flush succeeded or failed. */
    interface Outcome {
        /** The drive flushed: commit {@code batch} and acknowledge it. */
        void flushed(List<Held> batch);

        /** The flush failed: {@code batch} was not made durable. */
        void flushFailed(List<Held> batch, TapeFault fault);
    }

    private final DriveRunner drive;
    private final DriveContext context;
    private final List<Held> held = new ArrayList<>();
    private long bytes;
    /** Why the held files can no longer be flushed (their drive's mover was lost meanwhile), or null. */
    private String lostReason;

    HeldWrites(DriveRunner drive) {
        this.drive = drive;
        this.context = drive.context;
    }

    /**
     * Whether this drive writes buffered tape marks: a flush limit is configured and written tape files are not
     * read back (verify-after-write reads each one before its commit, and a drive never reads with writes held, so
     * with it every mark is synchronous: the same one synchronous mark per tape file a flush before the read-back
     * would cost).
     */
    boolean buffered() {
        DriveSettings s = context.settings();
        return s.flushFiles() > 0 && !s.verifyAfterWrite();
    }

    boolean isEmpty() {
        return held.isEmpty();
    }

    /** Bytes written since the last flush (counted against the cartridge's free space until committed). */
    long bytes() {
        return bytes;
    }

    /** A tape file was written with a buffered mark: its aggregate waits for the next flush. */
    void hold(PendingAggregate agg, AggregatePlan plan, WrittenFile written, String barcode) {
        held.add(new Held(agg, plan, written, barcode, context.loop().now()));
        bytes += plan.length();
    }

    /**
     * Whether the drive must flush before its next step: files are held and they reached a limit, the oldest waited
     * the hold time, or {@code moreToWrite} is false (the queue ran dry: before a read, an unload or idling).
     */
    boolean due(boolean moreToWrite) {
        if (held.isEmpty()) {
            return false;
        }
        DriveSettings s = context.settings();
        return !moreToWrite || held.size() >= s.flushFiles() || bytes >= s.flushBytes()
                || context.loop().now() - held.get(0).at() >= s.flushHoldMillis();
    }

    /** Takes every held file out (they are failed or committed by the caller). */
    List<Held> drain() {
        List<Held> batch = new ArrayList<>(held);
        held.clear();
        bytes = 0;
        lostReason = null;
        return batch;
    }

    /**
     * The tape files of {@code batch} were not made durable ({@code fault}): their aggregates are written again or
     * fail, as after a failed write; {@code moverLost}: not counted as an attempt.
     */
    void handBack(List<Held> batch, TapeFault fault, boolean moverLost) {
        for (Held h : batch) {
            context.cartridges().writeEnded(h.barcode());
            context.writeFailed(h.agg(), new TapeFault(fault.kind(), "tape file " + h.written().fileNumber() + " on "
                    + h.barcode() + " not flushed: " + fault.getMessage(), fault), moverLost);
        }
    }

    /**
     * The drive's mover was lost ({@code reason}) while files were held: the drive's buffer may be gone with the
     * mover's session (a reset drive, a restarted tape server), so a later flush proves nothing about them. They
     * are handed back at the next flush instead, even if the mover has come back by then.
     */
    void moverLost(String reason) {
        if (!held.isEmpty() && lostReason == null) {
            lostReason = reason;
        }
    }

    /** What the flush of {@code batch} must find on the drive: its cartridge, end of data after its last file. */
    static FlushCheck check(List<Held> batch) {
        WrittenFile last = batch.get(batch.size() - 1).written();
        return new FlushCheck(batch.get(0).barcode(), last.fileNumber(), endAfter(last));
    }

    /** The block after {@code w}'s filemark. */
    private static long endAfter(WrittenFile w) {
        return w.startBlock() + w.blockCount() + 1;
    }

    /**
     * Where the next append must start while files are held (the block after the last one's mark), or -1 when none
     * is held: an append elsewhere means the drive lost what it buffered (a reset between two appends).
     */
    long expectedStart() {
        return held.isEmpty() ? -1 : endAfter(held.get(held.size() - 1).written()); // no check built per append
    }

    /** Flushes the drive; then {@code outcome} is told about every file held until now. */
    void flush(Outcome outcome) {
        String lost = lostReason;
        if (lost != null) { // written before the mover was lost: not flushed on its next session, written again
            outcome.flushFailed(drain(), new TapeFault(FaultKind.DRIVE, "the drive's mover was lost while they "
                    + "waited for the flush (" + lost + "); the drive's buffer may be gone"));
            return;
        }
        FlushCheck expected;
        try {
            expected = check(held);
        } catch (IllegalArgumentException e) { // the library reported positions no tape has: nothing is proven
            outcome.flushFailed(drain(), new TapeFault(FaultKind.DRIVE, "the held tape files' positions are "
                    + "inconsistent (" + e.getMessage() + "); they are written again", e));
            return;
        }
        List<Held> batch = drain();
        String barcode = batch.get(0).barcode();
        drive.set(DriveRunner.State.BUSY, "flushing " + batch.size() + " tape files to " + barcode);
        context.library().flush(drive.id(), expected, new Completion<>() {
            @Override
            public void succeeded(Void v) {
                drive.succeeded();
                outcome.flushed(batch);
            }

            @Override
            public void failed(TapeFault fault) {
                outcome.flushFailed(batch, fault);
            }
        });
    }
}
