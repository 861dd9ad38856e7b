package org.tapeq.scheduler.engine;

import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.Catalog;
import org.tapeq.scheduler.catalog.CatalogException;
import org.tapeq.scheduler.catalog.DriveRecord;
import org.tapeq.scheduler.model.AggregateRecord;
import org.tapeq.scheduler.model.FileRecord;

/** A catalog whose aggregate commits fail, as if the daemon died between the tape write and the commit. */
final class FailingCommitCatalog implements Catalog {

    private final Catalog delegate;

    FailingCommitCatalog(Catalog delegate) {
        this.delegate = delegate;
    }

    @Override
    public void commitAggregate(AggregateRecord aggregate, List<FileRecord> members) {
        throw new CatalogException("simulated crash before the commit of " + aggregate.cartridge() + " tape file "
                + aggregate.tapeFile());
    }

    @Override public void check() { delegate.check(); }
    @Override public void checkWritable() { delegate.checkWritable(); }
    @Override public void renewLease(long now) { delegate.renewLease(now); }
    @Override public Optional<FileRecord> file(String pnfsid) { return delegate.file(pnfsid); }
    @Override public List<String> delete(Collection<String> pnfsids, long now) { return delegate.delete(pnfsids, now); }
    @Override public int putHints(List<FileRecord> hints) { return delegate.putHints(hints); }
    @Override public List<FileRecord> files(String barcode) { return delegate.files(barcode); }
    @Override public void forEachFile(Consumer<FileRecord> consumer) { delegate.forEachFile(consumer); }
    @Override public List<AggregateRecord> aggregates(String barcode) { return delegate.aggregates(barcode); }
    @Override public List<String> cartridgesHoldingDataset(String family, String dataset) {
        return delegate.cartridgesHoldingDataset(family, dataset);
    }
    @Override public List<CartridgeRecord> cartridges() { return delegate.cartridges(); }
    @Override public Optional<CartridgeRecord> cartridge(String barcode) { return delegate.cartridge(barcode); }
    @Override public void putCartridge(CartridgeRecord cartridge) { delegate.putCartridge(cartridge); }
    @Override public void recordMount(String barcode, long when) { delegate.recordMount(barcode, when); }
    @Override public void replaceCartridgeContents(CartridgeRecord cartridge, List<AggregateRecord> aggregates,
                                                   List<FileRecord> files) {
        delegate.replaceCartridgeContents(cartridge, aggregates, files);
    }
    @Override
    public void commitRepacked(AggregateRecord aggregate, List<FileRecord> members, String source, long now) {
        throw new CatalogException("simulated crash before the commit of " + aggregate.cartridge() + " tape file "
                + aggregate.tapeFile());
    }
    @Override public void putRepackJob(org.tapeq.scheduler.catalog.RepackJob job) {
        delegate.putRepackJob(job);
    }
    @Override public List<org.tapeq.scheduler.catalog.RepackJob> repackJobs() {
        return delegate.repackJobs();
    }
    @Override public void putRelabelIntent(org.tapeq.scheduler.catalog.RelabelIntent intent) {
        delegate.putRelabelIntent(intent);
    }
    @Override public List<org.tapeq.scheduler.catalog.RelabelIntent> relabelIntents() {
        return delegate.relabelIntents();
    }
    @Override public void commitRelabel(CartridgeRecord fresh) {
        delegate.commitRelabel(fresh);
    }
    @Override public void putMigrationJob(org.tapeq.scheduler.catalog.MigrationJob job) {
        delegate.putMigrationJob(job);
    }
    @Override public List<org.tapeq.scheduler.catalog.MigrationJob> migrationJobs() {
        return delegate.migrationJobs();
    }
    @Override public java.util.Optional<String> setting(String name) {
        return delegate.setting(name);
    }
    @Override public void putSetting(String name, String value, long now) {
        delegate.putSetting(name, value, now);
    }
    @Override public void recordVerification(org.tapeq.scheduler.catalog.Verification v) {
        delegate.recordVerification(v);
    }
    @Override public java.util.Optional<org.tapeq.scheduler.catalog.Verification> lastVerification(String b) {
        return delegate.lastVerification(b);
    }
    @Override public List<DriveRecord> drives() { return delegate.drives(); }
    @Override public void putDrive(DriveRecord drive) { delegate.putDrive(drive); }
    @Override public void close() { delegate.close(); }
}
