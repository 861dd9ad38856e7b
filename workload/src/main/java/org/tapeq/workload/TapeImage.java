package org.tapeq.workload;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What one cartridge holds when a simulation starts: tape files in order, each either other data nobody asks
 * for (filler, not in the catalog) or an aggregate of catalogued files, as tapeq writes them.
 */
public final class TapeImage {

    /** One tape file: an aggregate of {@code members}, or filler of {@code fillerBytes} if members is empty. */
    public record TapeFile(long fillerBytes, List<FileSpec> members) {
    }

    private final String barcode;
    private final String family;
    private final List<TapeFile> files = new ArrayList<>();
    private long bytes;
    private boolean full;

    public TapeImage(String barcode, String family) {
        this.barcode = barcode;
        this.family = family;
    }

    public TapeImage filler(long fillerBytes) {
        if (fillerBytes > 0) {
            files.add(new TapeFile(fillerBytes, List.of()));
            bytes += fillerBytes;
        }
        return this;
    }

    public TapeImage aggregate(List<FileSpec> members) {
        if (members.isEmpty()) {
            throw new IllegalArgumentException("an aggregate needs members");
        }
        files.add(new TapeFile(0, List.copyOf(members)));
        for (FileSpec f : members) {
            bytes += f.size();
        }
        return this;
    }

    /**
     * Writes a dataset's files as consecutive aggregates of at most {@code aggregateBytes}, as the scheduler's
     * aggregator closes them (a file of at least that size is an aggregate of its own).
     */
    public TapeImage dataset(List<FileSpec> dataset, long aggregateBytes) {
        List<FileSpec> open = new ArrayList<>();
        long openBytes = 0;
        for (FileSpec f : dataset) {
            if (!open.isEmpty() && openBytes + f.size() > aggregateBytes) {
                aggregate(open);
                open = new ArrayList<>();
                openBytes = 0;
            }
            open.add(f);
            openBytes += f.size();
        }
        if (!open.isEmpty()) {
            aggregate(open);
        }
        return this;
    }

    /** Marks the cartridge closed for writing (its family's writes go elsewhere). */
    public TapeImage full() {
        full = true;
        return this;
    }

    public boolean isFull() {
        return full;
    }

    public String barcode() {
        return barcode;
    }

    public String family() {
        return family;
    }

    public List<TapeFile> files() {
        return Collections.unmodifiableList(files);
    }

    /** Bytes of all tape files (manifests not counted). */
    public long bytes() {
        return bytes;
    }
}
