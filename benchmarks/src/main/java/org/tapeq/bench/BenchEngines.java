package org.tapeq.bench;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.Catalog;
import org.tapeq.scheduler.catalog.DriveRecord;
import org.tapeq.scheduler.engine.EngineHarness;
import org.tapeq.scheduler.engine.SchedulerConfig;
import org.tapeq.scheduler.engine.dispatch.Dispatcher;
import org.tapeq.scheduler.engine.queue.StageItem;
import org.tapeq.scheduler.model.AggregateRecord;
import org.tapeq.scheduler.model.FileRecord;
import org.tapeq.scheduler.model.StageRequest;
import org.tapeq.scheduler.tape.ByteSink;
import org.tapeq.scheduler.tape.CartridgeCapacity;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.DriveAlerts;
import org.tapeq.scheduler.tape.FlushCheck;
import org.tapeq.scheduler.tape.Inventory;
import org.tapeq.scheduler.tape.TapeFileSource;
import org.tapeq.scheduler.tape.TapeLibrary;
import org.tapeq.scheduler.tape.WrittenFile;
import org.tapeq.scheduler.time.VirtualEventLoop;

/**
 * Builds a real engine ({@link EngineHarness}) for benchmarks of its data structures: the inventory is handed
 * to the engine directly, the library answers nothing (no tape operation is issued because the loop is not
 * run), and the catalog keeps nothing.
 */
public final class BenchEngines {

    private BenchEngines() {
    }

    /** An engine over {@code cartridges} LTO-9 cartridges and {@code drives} drives, started, loop not run. */
    public static EngineHarness engine(int cartridges, int drives) {
        VirtualEventLoop loop = new VirtualEventLoop(1_700_000_000_000L);
        List<Inventory.Drive> ds = new ArrayList<>();
        for (int i = 0; i < drives; i++) {
            ds.add(new Inventory.Drive("drive" + i, null, true));
        }
        List<Inventory.Cartridge> cs = new ArrayList<>();
        for (int i = 0; i < cartridges; i++) {
            cs.add(new Inventory.Cartridge(barcode(i), "LTO-9", "slot:" + i));
        }
        return EngineHarness.start(loop, new InventoryOnly(), new NullCatalog(), SchedulerConfig.defaults(),
                new Inventory(ds, cs));
    }

    public static String barcode(int i) {
        return String.format("B%05dL9", i);
    }

    /** A stage item as the scheduler makes it after the catalog lookup. */
    public static StageItem item(long id, String pnfsid, long arrival, int tapeFile, long block, long size) {
        StageRequest r = new StageRequest(id, pnfsid, size, "atlas:raw@osm", null, "atlas", null, 0, 0, null);
        return new StageItem(r, arrival, tapeFile, block, block * 262_144L, size, null);
    }

    public static void admit(EngineHarness engine, StageItem item, String barcode) {
        engine.admit(item, barcode);
    }

    public static Dispatcher.Choice choose(EngineHarness engine) {
        return engine.choose();
    }

    /** Takes the best queue out of the index and files it back, as a mount and its return would. */
    public static void requeue(EngineHarness engine, Dispatcher.Choice choice) {
        engine.requeue(choice);
    }

    public static void finish(EngineHarness engine, StageItem item) {
        engine.finishStaged(item);
    }

    public static int readyQueues(EngineHarness engine) {
        return engine.readyQueues();
    }

    private static final class InventoryOnly implements TapeLibrary {
        @Override public int blockSize() { return 262_144; }
        @Override public void inventory(Completion<Inventory> done) { throw new UnsupportedOperationException(); }
        @Override public void mount(String d, String b, Completion<Void> done) { }
        @Override public void unmount(String d, Completion<Void> done) { }
        @Override public void locate(String d, long block, Completion<Void> done) { }
        @Override public void locateFile(String d, int n, Completion<Long> done) { }
        @Override public void read(String d, long skip, long len, ByteSink sink, Completion<Long> done) { }
        @Override public void append(String d, TapeFileSource s, Completion<WrittenFile> done) { }
        @Override public void writeLabel(String d, TapeFileSource s, Completion<WrittenFile> done) { }
        @Override public void flush(String d, FlushCheck e, Completion<Void> done) { }
        @Override public Optional<CartridgeCapacity> capacity(String d) { return Optional.empty(); }
        @Override public void alerts(DriveAlerts alerts) { }
    }

    private static final class NullCatalog implements Catalog {
        @Override public void check() { }
        @Override public void checkWritable() { }
        @Override public void renewLease(long now) { }
        @Override public Optional<FileRecord> file(String pnfsid) { return Optional.empty(); }
        @Override public void commitAggregate(AggregateRecord a, List<FileRecord> m) { }
        @Override public List<String> delete(Collection<String> pnfsids, long now) { return List.of(); }
        @Override public int putHints(List<FileRecord> hints) { return 0; }
        @Override public List<FileRecord> files(String barcode) { return List.of(); }
        @Override public void forEachFile(Consumer<FileRecord> consumer) { }
        @Override public List<AggregateRecord> aggregates(String barcode) { return List.of(); }
        @Override public List<String> cartridgesHoldingDataset(String f, String d) { return List.of(); }
        @Override public List<CartridgeRecord> cartridges() { return List.of(); }
        @Override public Optional<CartridgeRecord> cartridge(String barcode) { return Optional.empty(); }
        @Override public void putCartridge(CartridgeRecord cartridge) { }
        @Override public void recordMount(String barcode, long when) { }
        @Override public void replaceCartridgeContents(CartridgeRecord c, List<AggregateRecord> a, List<FileRecord> f) { }
        @Override public void commitRepacked(AggregateRecord a, List<FileRecord> m, String s, long now) { }
        @Override public void putRepackJob(org.tapeq.scheduler.catalog.RepackJob job) { }
        @Override public List<org.tapeq.scheduler.catalog.RepackJob> repackJobs() { return List.of(); }
        @Override public void putRelabelIntent(org.tapeq.scheduler.catalog.RelabelIntent intent) { }
        @Override public List<org.tapeq.scheduler.catalog.RelabelIntent> relabelIntents() { return List.of(); }
        @Override public void commitRelabel(CartridgeRecord fresh) { }
        @Override public void putMigrationJob(org.tapeq.scheduler.catalog.MigrationJob job) { }
        @Override public List<org.tapeq.scheduler.catalog.MigrationJob> migrationJobs() { return List.of(); }
        @Override public Optional<String> setting(String name) { return Optional.empty(); }
        @Override public void putSetting(String name, String value, long now) { }
        @Override public void recordVerification(org.tapeq.scheduler.catalog.Verification v) { }
        @Override public java.util.Optional<org.tapeq.scheduler.catalog.Verification> lastVerification(String b) {
            return java.util.Optional.empty();
        }
        @Override public List<DriveRecord> drives() { return List.of(); }
        @Override public void putDrive(DriveRecord drive) { }
        @Override public void close() { }
    }
}
