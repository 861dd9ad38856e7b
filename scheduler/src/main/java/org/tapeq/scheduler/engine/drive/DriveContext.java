package org.tapeq.scheduler.engine.drive;

import java.util.List;

import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.DriveRecord;
import org.tapeq.scheduler.engine.fault.FaultReactions;
import org.tapeq.scheduler.engine.queue.Cartridges;
import org.tapeq.scheduler.engine.queue.FlushItem;
import org.tapeq.scheduler.engine.queue.PendingAggregate;
import org.tapeq.scheduler.engine.queue.Queues;
import org.tapeq.scheduler.engine.queue.StageItem;
import org.tapeq.scheduler.engine.store.CatalogWriter;
import org.tapeq.scheduler.model.AggregateRecord;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.FileRecord;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.StageSpace;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.policy.MountPolicy;
import org.tapeq.scheduler.policy.EstimatedGeometry;
import org.tapeq.scheduler.tape.TapeLibrary;
import org.tapeq.scheduler.time.EventLoop;

/**
 * Everything a drive uses of the rest of the engine: the loop and library, the queues and cartridges, the
 * dispatcher's accounting, the one finish path of requests, the write path's bookkeeping, and the catalog.
 * All calls happen on the loop.
 */
public interface DriveContext {

    EventLoop loop();

    TapeLibrary library();

    DriveSettings settings();

    MountPolicy policy();

    StageSpace stageSpace();

    /** Told of mounts, locates, bytes and errors, for metrics. */
    DriveObserver observer();

    Queues queues();

    Cartridges cartridges();

    EstimatedGeometry geometry(MediaType media);

    /** The estimate the read order uses for {@code barcode}: nominal, or its learnt layout if the policy learns. */
    EstimatedGeometry geometry(MediaType media, String barcode);

    /**
     * The drive reported {@code barcode}'s end-of-wrap blocks: the read order of every policy uses them in place of
     * the nominal estimate or a learnt one. A report that does not fit the media (another number of wraps) is
     * logged and ignored.
     */
    void wrapEndsReported(String barcode, MediaType media, long[] ends);

    /**
     * A label is written on {@code barcode}: its old data, and with it what was reported or learnt of its layout,
     * is gone; the read order uses the nominal estimate until the drive reports its wrap ends again.
     */
    void layoutGone(String barcode);

    /** A locate on {@code barcode} from {@code fromBlock} (-1: unknown) to {@code toBlock} took {@code millis}. */
    void located(String barcode, MediaType media, long fromBlock, long toBlock, long millis);

    // ---------------------------------------------------------------- dispatch

    /** Runs dispatch soon (coalesced). */
    void requestDispatch();

    /** Counts the drive as used by {@code group} for reading or writing (fair share, caps). */
    void account(DriveRunner drive, String group, boolean write);

    /** The drive is nobody's (free, broken, or at an admin task). */
    void unaccount(DriveRunner drive);

    /** The group the drive is accounted to, or null. */
    String accountedGroup(DriveRunner drive);

    /** Whether it is accounted as writing. */
    boolean accountedWrite(DriveRunner drive);

    /** Whether a drive other than this one is in service. */
    boolean otherDriveCouldServe(DriveRunner drive);

    void robotSucceeded();

    void robotFailed(TapeFault fault);

    // ---------------------------------------------------------------- counters and outcomes

    /**
     * Counts a fault and keeps it among the recent faults of the status, with the drive and cartridge involved
     * (either may be null) and the reason.
     */
    void fault(FaultKind kind, String drive, String cartridge, String reason);

    /** A cartridge was mounted (counted, and recorded in the catalog). */
    void mounted(String barcode);

    void unmounted();

    /** The one place a stage ends. */
    void finish(StageItem item, Outcome outcome);

    /** The one place a flush ends. */
    void finish(FlushItem item, Outcome outcome);

    Outcome.Failed failed(FaultKind kind, String message, int attempts);

    /** A read of the item failed with {@code fault} during {@code op} on drive {@code drive}: retry or fail. */
    void readFailed(StageItem item, TapeFault fault, FaultReactions.Operation op, String drive);

    /**
     * An aggregate of {@code bytes} was written and committed on {@code barcode}; {@code after} is the
     * cartridge's record as the catalog had it right after the commit (null if it lacks it).
     */
    void written(PendingAggregate agg, String barcode, long bytes, CartridgeRecord after);

    /** Writing the aggregate failed: it is queued again or its members fail (see {@link FaultReactions}). */
    void writeFailed(PendingAggregate agg, TapeFault fault, boolean moverLost);

    // ---------------------------------------------------------------- catalog

    /**
     * Commits a written aggregate through the catalog writer and reads its cartridge back in the same task;
     * {@code done} is told on the loop, after the commit succeeded or failed.
     */
    void commitAggregate(AggregateRecord aggregate, List<FileRecord> files, CatalogWriter.Done<CartridgeRecord> done);

    /** Saves a drive's state through the catalog writer (nobody waits for it). */
    void saveDrive(DriveRecord drive);

    /** Whether the catalog answered its last task (the loop's view): no write starts while it does not. */
    boolean catalogReachable();

    /**
     * Checks, after every catalog task before it, that the catalog answers and that this process may still write
     * it ({@link org.tapeq.scheduler.catalog.Catalog#checkWritable}: fenced by the site lease); {@code done} is
     * told on the loop (at once, inline, in virtual time). A write starts only after this succeeded, so its
     * commit can follow; a failure is the write's to answer.
     */
    void checkBeforeWrite(CatalogWriter.Done<Void> done);
}
