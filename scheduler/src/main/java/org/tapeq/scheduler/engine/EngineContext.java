package org.tapeq.scheduler.engine;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.DriveRecord;
import org.tapeq.scheduler.engine.drive.DriveContext;
import org.tapeq.scheduler.engine.drive.DriveObserver;
import org.tapeq.scheduler.engine.drive.DriveRunner;
import org.tapeq.scheduler.engine.drive.DriveSettings;
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
import org.tapeq.scheduler.policy.CartridgeLayouts;
import org.tapeq.scheduler.policy.EstimatedGeometry;
import org.tapeq.scheduler.tape.TapeLibrary;
import org.tapeq.scheduler.time.EventLoop;

/** What the drives see of the engine ({@link DriveContext}), wired to the engine's parts. */
final class EngineContext implements DriveContext {

    private static final Logger LOG = LoggerFactory.getLogger(EngineContext.class);

    private final Engine engine;
    private final MountPolicy policy;
    private final StageSpace stageSpace;
    private final DriveSettings settings;
    private final Map<MediaType, EstimatedGeometry> geometries = new HashMap<>();
    private final CartridgeLayouts layouts = new CartridgeLayouts();

    EngineContext(Engine engine, MountPolicy policy, StageSpace stageSpace) {
        this.engine = engine;
        this.policy = policy;
        this.stageSpace = stageSpace;
        SchedulerConfig c = engine.config;
        this.settings = new DriveSettings(c.checkLabels(), c.verifyAfterWrite(), c.idleUnmountMillis(),
                c.dwellMillis(), c.retryBackoffMillis(), c.driveErrorLimit(), c.mergeGapBytes(),
                c.flushFiles(), c.flushBytes(), c.flushHoldMillis());
    }

    @Override public EventLoop loop() { return engine.loop; }
    @Override public TapeLibrary library() { return engine.library; }
    @Override public DriveSettings settings() { return settings; }
    @Override public MountPolicy policy() { return policy; }
    @Override public StageSpace stageSpace() { return stageSpace; }
    @Override public DriveObserver observer() { return engine.observer; }
    @Override public Queues queues() { return engine.queues; }
    @Override public Cartridges cartridges() { return engine.cartridges; }

    @Override
    public EstimatedGeometry geometry(MediaType media) {
        return geometries.computeIfAbsent(media, m -> new EstimatedGeometry(m, engine.library.blockSize()));
    }

    @Override
    public EstimatedGeometry geometry(MediaType media, String barcode) {
        EstimatedGeometry nominal = geometry(media);
        return layouts.geometry(barcode, nominal, policy.learnsLayout());
    }

    @Override
    public void wrapEndsReported(String barcode, MediaType media, long[] ends) {
        try {
            layouts.wrapEnds(barcode, geometry(media), ends);
        } catch (IllegalArgumentException e) {
            LOG.warn("Ignoring the end-of-wrap positions the drive reported for {}: {}", barcode, e.getMessage());
        }
    }

    @Override
    public void layoutGone(String barcode) {
        layouts.forget(barcode);
    }

    @Override
    public void located(String barcode, MediaType media, long fromBlock, long toBlock, long millis) {
        if (policy.learnsLayout()) {
            layouts.located(barcode, geometry(media), fromBlock, toBlock, millis, policy.learnsWraps());
        }
    }

    @Override public void requestDispatch() { engine.dispatcher.requestDispatch(); }
    @Override
    public void account(DriveRunner d, String group, boolean write) {
        engine.dispatcher.account(d, group, write);
    }

    @Override public void unaccount(DriveRunner d) { engine.dispatcher.unaccount(d); }
    @Override public String accountedGroup(DriveRunner d) { return engine.dispatcher.accountedGroup(d); }
    @Override public boolean accountedWrite(DriveRunner d) { return engine.dispatcher.accountedWrite(d); }
    @Override public boolean otherDriveCouldServe(DriveRunner d) { return engine.dispatcher.otherDriveCouldServe(d); }
    @Override public void robotSucceeded() { engine.dispatcher.robot().succeeded(); }
    @Override public void robotFailed(TapeFault fault) { engine.dispatcher.robot().failed(fault); }
    @Override
    public void fault(FaultKind kind, String drive, String cartridge, String reason) {
        engine.fault(kind, drive, cartridge, reason);
    }

    /** Counts a mount (and a remount if the cartridge was mounted before in this run) in the catalog too. */
    @Override
    public void mounted(String barcode) {
        engine.counters.mounts++;
        if (engine.cartridges.mounted(barcode, engine.loop.now())) {
            engine.counters.remounts++;
        }
    }

    @Override public void unmounted() { engine.counters.unmounts++; }
    @Override public void finish(StageItem item, Outcome outcome) { engine.ends.finish(item, outcome); }
    @Override public void finish(FlushItem item, Outcome outcome) { engine.ends.finish(item, outcome); }

    @Override
    public Outcome.Failed failed(FaultKind kind, String message, int attempts) {
        return engine.ends.failed(kind, message, attempts);
    }

    @Override
    public void readFailed(StageItem item, TapeFault fault, FaultReactions.Operation op, String drive) {
        engine.ends.readFailed(item, fault, op, drive);
    }

    @Override
    public void written(PendingAggregate agg, String barcode, long bytes, CartridgeRecord after) {
        engine.counters.aggregatesWritten++;
        engine.counters.bytesWritten += bytes;
        engine.aggregator.written(agg.family(), agg.dataset(), barcode);
        engine.queues.refreshCartridge(after);
    }

    @Override
    public void writeFailed(PendingAggregate agg, TapeFault fault, boolean moverLost) {
        engine.aggregator.writeFailed(agg, fault, moverLost);
    }

    @Override
    public void commitAggregate(AggregateRecord aggregate, List<FileRecord> files,
                                CatalogWriter.Done<CartridgeRecord> done) {
        engine.writer.commit(engine.catalog, aggregate, files, done);
    }

    @Override
    public boolean catalogReachable() {
        return engine.catalogReachable();
    }

    @Override
    public void checkBeforeWrite(CatalogWriter.Done<Void> done) {
        // The writer retries the check while the catalog is unreachable; any other failure (a deposed holder's
        // refused fence, a database error) reaches done.failed and the write does not start.
        engine.writer.submit(CatalogWriter.Kind.READ, () -> {
            engine.catalog.checkWritable();
            return null;
        }, done);
    }

    @Override
    public void saveDrive(DriveRecord drive) {
        engine.writer.submit(CatalogWriter.Kind.DRIVE, () -> engine.catalog.putDrive(drive),
                "save drive " + drive.id());
    }
}
