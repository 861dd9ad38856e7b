package org.tapeq.scheduler.engine.queue;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.CartridgeState;
import org.tapeq.scheduler.tape.CartridgeCapacity;
import org.tapeq.scheduler.catalog.Catalog;
import org.tapeq.scheduler.engine.store.CatalogWriter;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.tape.Inventory;

/**
 * The engine's copy of the cartridge records, on the loop. Every catalog write about a cartridge made while
 * scheduling ({@code putCartridge}, {@code recordMount}) is handed to the {@link CatalogWriter} here and only
 * here; the record here is changed at once, the catalog's in the writer's order.
 */
public final class Cartridges {

    private final Catalog catalog;
    private final CatalogWriter writer;
    private final long fullMarginBytes;
    private final Map<String, CartridgeRecord> records = new LinkedHashMap<>();
    private final Map<String, Integer> mountsThisRun = new HashMap<>();
    /** Cartridges no new file may be written to, whatever their state (see {@link #closeForWriting}). */
    private Predicate<CartridgeRecord> closedForWriting = c -> false;
    /** Writes under way per cartridge: begun (writability checked) and not yet committed or failed. */
    private final Map<String, Integer> writing = new HashMap<>();
    private final Map<String, List<Runnable>> noWrites = new HashMap<>();

    /** {@code fullMarginBytes}: a cartridge with less room than this is closed for writing. */
    public Cartridges(Catalog catalog, CatalogWriter writer, long fullMarginBytes) {
        this.catalog = catalog;
        this.writer = writer;
        this.fullMarginBytes = fullMarginBytes;
    }

    /** Loads the records the catalog has (at start, before the loop serves anything: a synchronous read). */
    public void load() {
        for (CartridgeRecord c : catalog.cartridges()) {
            records.put(c.barcode(), c);
        }
    }

    /** Enters cartridges the catalog does not know as {@code UNKNOWN} (label not read yet); returns their barcodes. */
    public List<String> addNew(Inventory inventory) {
        List<String> added = new ArrayList<>();
        for (Inventory.Cartridge c : inventory.cartridges()) {
            if (!records.containsKey(c.barcode())) {
                MediaType media = mediaOf(c);
                CartridgeRecord rec = new CartridgeRecord(c.barcode(), media.name(), null, CartridgeState.UNKNOWN,
                        media.capacityBytes(), 0, 0, 0, 0, 0, false, "label not read yet");
                writer.submit(CatalogWriter.Kind.CARTRIDGE, () -> catalog.putCartridge(rec), "enter cartridge "
                        + rec.barcode());
                records.put(c.barcode(), rec);
                added.add(c.barcode());
            }
        }
        return added;
    }

    private static MediaType mediaOf(Inventory.Cartridge c) {
        if (c.mediaType() != null) {
            MediaType m = MediaType.byName(c.mediaType()).orElse(null);
            if (m != null) {
                return m;
            }
        }
        return MediaType.fromBarcode(c.barcode()).orElse(MediaType.LTO9);
    }

    public MediaType mediaOf(String barcode) {
        CartridgeRecord c = records.get(barcode);
        if (c == null) {
            return MediaType.fromBarcode(barcode).orElse(MediaType.LTO9);
        }
        return MediaType.byName(c.mediaType()).orElse(MediaType.LTO9);
    }

    /** Media of the first cartridge of the family, else LTO-9. */
    public MediaType familyMedia(String family) {
        for (CartridgeRecord c : records.values()) {
            if (family.equals(c.family())) {
                return MediaType.byName(c.mediaType()).orElse(MediaType.LTO9);
            }
        }
        return MediaType.LTO9;
    }

    /** The record, or null if the cartridge is not in the library. */
    public CartridgeRecord get(String barcode) {
        return records.get(barcode);
    }

    public boolean contains(String barcode) {
        return records.containsKey(barcode);
    }

    /** Every record, in inventory order. */
    public Collection<CartridgeRecord> all() {
        return Collections.unmodifiableCollection(records.values());
    }

    public int size() {
        return records.size();
    }

    /**
     * Whether the cartridge may take {@code bytes} more (appendable, enabled, not closed by a rule of
     * {@link #closeForWriting}, room beyond a tenth of the margin).
     */
    public boolean writable(CartridgeRecord c, long bytes) {
        return c.state().writable() && !c.disabled() && c.freeBytes() >= bytes + fullMarginBytes / 10
                && !closedForWriting.test(c);
    }

    /**
     * Adds a rule under which a cartridge takes no new file even when its state says appendable (a running
     * migration's old media: a cartridge made appendable after the migration closed the others stays unwritten).
     */
    public void closeForWriting(Predicate<CartridgeRecord> rule) {
        closedForWriting = closedForWriting.or(rule);
    }

    /** Whether a cartridge this full is closed for writing. */
    public boolean nearlyFull(CartridgeRecord c) {
        return c.state() == CartridgeState.APPENDABLE && tooLittleLeft(c.freeBytes());
    }

    /**
     * The capacity a cartridge's memory reported, applied to its record: the capacity becomes what tapeq has
     * written plus what the cartridge says is left (at most its maximum), so that free space is the real one
     * and not the media type's nominal capacity. Returns the record to keep, or null if nothing changes.
     */
    public CartridgeRecord withMeasuredCapacity(CartridgeRecord c, CartridgeCapacity cap) {
        long capacity = Math.min(cap.maximumBytes(), c.usedBytes() + cap.remainingBytes());
        if (capacity == c.capacityBytes()) {
            return null;
        }
        return new CartridgeRecord(c.barcode(), c.mediaType(), c.family(), c.state(), capacity, c.usedBytes(),
                c.reclaimableBytes(), c.tapeFiles(), c.mountCount(), c.lastMount(), c.disabled(), c.reason());
    }

    /** Whether a cartridge with this much room left is closed for writing. */
    public boolean tooLittleLeft(long freeBytes) {
        return freeBytes < fullMarginBytes;
    }

    /** Keeps a changed record here and in the catalog. */
    public void save(CartridgeRecord updated) {
        records.put(updated.barcode(), updated);
        writer.submit(CatalogWriter.Kind.CARTRIDGE, () -> catalog.putCartridge(updated), "save cartridge "
                + updated.barcode());
    }

    /** Keeps a record the catalog already has (after a rebuild wrote it). */
    public void keep(CartridgeRecord record) {
        records.put(record.barcode(), record);
    }

    /**
     * Takes the use of a cartridge (bytes used and reclaimable, tape files) from its record as the catalog had
     * it right after a commit; the rest of the record stays as here, which may be newer (a state saved while
     * the commit was in the writer's queue). Returns the record now kept, or null if either side lacks it.
     */
    public CartridgeRecord committed(CartridgeRecord fromCatalog) {
        if (fromCatalog == null) {
            return null;
        }
        CartridgeRecord c = records.get(fromCatalog.barcode());
        if (c == null) {
            return null;
        }
        CartridgeRecord merged = new CartridgeRecord(c.barcode(), c.mediaType(), c.family(), c.state(),
                c.capacityBytes(), fromCatalog.usedBytes(), fromCatalog.reclaimableBytes(), fromCatalog.tapeFiles(),
                c.mountCount(), c.lastMount(), c.disabled(), c.reason());
        records.put(merged.barcode(), merged);
        return merged;
    }

    /**
     * Counts a mount in the catalog and the record; returns whether the cartridge was mounted before in this
     * run (a remount).
     */
    public boolean mounted(String barcode, long now) {
        boolean remount = mountsThisRun.merge(barcode, 1, Integer::sum) > 1;
        writer.submit(CatalogWriter.Kind.MOUNT, () -> catalog.recordMount(barcode, now), "record the mount of "
                + barcode);
        CartridgeRecord c = records.get(barcode);
        if (c != null) {
            records.put(barcode, new CartridgeRecord(c.barcode(), c.mediaType(), c.family(), c.state(),
                    c.capacityBytes(), c.usedBytes(), c.reclaimableBytes(), c.tapeFiles(), c.mountCount() + 1, now,
                    c.disabled(), c.reason()));
        }
        return remount;
    }

    /** Mounts per cartridge in this run. */
    public Map<String, Integer> mountsThisRun() {
        return Collections.unmodifiableMap(mountsThisRun);
    }

    /**
     * A write to {@code barcode} begins (its writability was checked); a cartridge closed meanwhile may still
     * receive its files, so whoever decides it holds none ({@code EMPTY}) waits until {@link #writing} is 0.
     */
    public void writeBegun(String barcode) {
        writing.merge(barcode, 1, Integer::sum);
    }

    /** A write begun with {@link #writeBegun} was committed or failed. */
    public void writeEnded(String barcode) {
        writing.computeIfPresent(barcode, (b, n) -> n > 1 ? n - 1 : null);
        if (!writing.containsKey(barcode)) {
            List<Runnable> waiting = noWrites.remove(barcode);
            if (waiting != null) {
                waiting.forEach(Runnable::run);
            }
        }
    }

    /** Runs {@code then} now if no write to {@code barcode} is under way, else once the last one ended. */
    public void whenNoWrites(String barcode, Runnable then) {
        if (writing(barcode) == 0) {
            then.run();
        } else {
            noWrites.computeIfAbsent(barcode, b -> new ArrayList<>()).add(then);
        }
    }

    /** Writes begun on {@code barcode} and not yet committed or failed. */
    public int writing(String barcode) {
        return writing.getOrDefault(barcode, 0);
    }
}
