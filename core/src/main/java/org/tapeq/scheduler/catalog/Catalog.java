package org.tapeq.scheduler.catalog;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.tapeq.scheduler.model.AggregateRecord;
import org.tapeq.scheduler.model.FileRecord;

/**
 * The durable record of what is where: files, aggregates, cartridges and drives. Thread-safe. Every method
 * that changes state is one transaction that is durable when it returns.
 *
 * <p>Write order (docs/scheduler.md): bytes on tape, verified, then {@link #commitAggregate}, then the flush
 * is acknowledged. A crash before the commit leaves a tape file the catalog does not reference (dead space,
 * found again by a rebuild); never a catalog entry without its bytes.
 */
public interface Catalog extends AutoCloseable {

    /**
     * Checks that the catalog answers now (a database round trip); throws {@link CatalogUnavailableException} if
     * it cannot be reached. A catalog that is always there (in memory) does nothing.
     *
     * <p>This and the two methods below have no default on purpose: a catalog in front of another (a decorator)
     * must pass them on, and a do-nothing default would let it skip the round trip or the lease silently.
     */
    void check();

    /**
     * Checks that the catalog answers and that this process may write it now: with a site lease held, the same
     * fence as a write ({@link CatalogLeaseException} if the lease was taken over). Called before a tape write,
     * so that no tape is written whose commit is bound to be refused. Without a lease it is {@link #check()}.
     */
    void checkWritable();

    /**
     * Moves the expiry of the site lease this catalog holds (if any) to {@code now} plus its length; refused
     * ({@link CatalogLeaseException}) if another process took it over. Without a lease it does nothing.
     */
    void renewLease(long now);

    /** The live (not deleted) location of a file. */
    Optional<FileRecord> file(String pnfsid);

    /** The live locations of many files at once (a restart looks up a million); files not found are absent. */
    default Map<String, FileRecord> files(Collection<String> pnfsids) {
        Map<String, FileRecord> found = new HashMap<>();
        for (String p : pnfsids) {
            file(p).ifPresent(f -> found.put(p, f));
        }
        return found;
    }

    /**
     * Records a written aggregate and its members, and adds its bytes and one tape file to the cartridge's
     * usage. A member that already had a live location is moved to the new one; the old copy's size becomes
     * reclaimable on its cartridge.
     */
    void commitAggregate(AggregateRecord aggregate, List<FileRecord> members);

    /** An aggregate and its members, for {@link #commitAggregates}. */
    record Written(AggregateRecord aggregate, List<FileRecord> members) {
    }

    /**
     * Commits many aggregates as {@link #commitAggregate} would, in order; an implementation may do it in one
     * transaction (all or none), which is what loading many tapes at once (a simulation's starting contents)
     * needs. The default commits them one by one.
     */
    default void commitAggregates(List<Written> aggregates) {
        for (Written w : aggregates) {
            commitAggregate(w.aggregate(), w.members());
        }
    }

    /**
     * Logically deletes files; each deleted file's size becomes reclaimable on its cartridge.
     *
     * @return the pnfsids that had a live entry
     */
    List<String> delete(Collection<String> pnfsids, long now);

    /** Records locations known from tape hints (ENDIT); never replaces a location written by tapeq. */
    int putHints(List<FileRecord> hints);

    /** Live files on one cartridge, in tape order. */
    List<FileRecord> files(String barcode);

    /**
     * Live user files per cartridge (a file of an aggregate counts once, the aggregate's tape file not at all);
     * cartridges without any are absent. Walks every file unless the catalog counts them itself.
     */
    default Map<String, Long> fileCounts() {
        Map<String, Long> out = new HashMap<>();
        forEachFile(f -> {
            if (f.cartridge() != null) {
                out.merge(f.cartridge(), 1L, Long::sum);
            }
        });
        return out;
    }

    /** Calls the consumer for every live file, in no particular order. */
    void forEachFile(Consumer<FileRecord> consumer);

    /** Aggregates on one cartridge, by tape file number. */
    List<AggregateRecord> aggregates(String barcode);

    /** Cartridges holding live files of this dataset in this family, most recently written first. */
    List<String> cartridgesHoldingDataset(String family, String dataset);

    List<CartridgeRecord> cartridges();

    Optional<CartridgeRecord> cartridge(String barcode);

    /**
     * Inserts a cartridge, or changes a known one's media, family, state, capacity, disabled flag and reason. Its
     * usage counters (used and reclaimable bytes, tape files, mounts) are taken only when the cartridge is new:
     * afterwards they belong to the catalog (commits, deletes and mounts change them), and a caller's copy of
     * the record may be older than those changes. {@link #replaceCartridgeContents} and {@link #commitRelabel}
     * set them outright.
     */
    void putCartridge(CartridgeRecord cartridge);

    /** Counts a mount. */
    void recordMount(String barcode, long when);

    /**
     * Replaces everything recorded about one cartridge (its aggregates and files) with what was read from
     * it; used by the rebuild from tape. Files of other cartridges with the same pnfsid keep priority only if
     * written later.
     */
    void replaceCartridgeContents(CartridgeRecord cartridge, List<AggregateRecord> aggregates,
                                  List<FileRecord> files);

    /** Records what a cartridge's verification found, replacing the one before. */
    void recordVerification(Verification verification);

    /** The last verification of a cartridge, if it was ever verified. */
    Optional<Verification> lastVerification(String barcode);

    /**
     * Records the aggregate a repack wrote, as {@link #commitAggregate} would, in one transaction: each member
     * live on {@code source} moves to its new location and its old copy becomes reclaimable there. A member
     * deleted while the repack copied it is not brought back: its new copy is recorded deleted at once (its
     * bytes reclaimable on the new cartridge). A member live on a cartridge other than the source (not a
     * case tapeq itself creates) is moved like any commit moves it: the repack's copy holds the same verified
     * bytes.
     */
    void commitRepacked(AggregateRecord aggregate, List<FileRecord> members, String source, long now);

    /** Records a repack job, replacing the one of the same source cartridge. */
    void putRepackJob(RepackJob job);

    /** Every recorded repack job, by source cartridge. */
    List<RepackJob> repackJobs();

    /**
     * Records that a cartridge is about to be relabelled, replacing an earlier intent for it. Refused
     * ({@link IllegalStateException}) if any file is live on it.
     */
    void putRelabelIntent(RelabelIntent intent);

    /** Every recorded relabel intent (relabels not yet committed), by barcode. */
    List<RelabelIntent> relabelIntents();

    /**
     * Commits a relabel whose new label is on tape, in one transaction: forgets the cartridge's tape files (its
     * aggregates, and the superseded and lost copies of files that were on it; records of user deletions stay, so
     * that a deletion stays one), removes its relabel intent and stores {@code fresh} (no tape file, nothing used).
     * Refused ({@link IllegalStateException}, nothing changed) if any file is live on it.
     */
    void commitRelabel(CartridgeRecord fresh);

    /** Records a media migration, replacing the one of the same id (its state, end and summary). */
    void putMigrationJob(MigrationJob job);

    /** Every recorded media migration, oldest first. */
    List<MigrationJob> migrationJobs();

    /**
     * An operator's setting that must outlive the daemon (e.g. {@code reclaim.paused}), or empty if it was never
     * set. Names are dotted, lower-case keys chosen by the part of tapeq that owns the setting.
     */
    Optional<String> setting(String name);

    /** Records an operator's setting at loop time {@code now}, replacing its earlier value. */
    void putSetting(String name, String value, long now);

    List<DriveRecord> drives();

    void putDrive(DriveRecord drive);

    @Override
    void close();
}
