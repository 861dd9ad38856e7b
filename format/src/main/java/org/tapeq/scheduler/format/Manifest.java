package org.tapeq.scheduler.format;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.tapeq.scheduler.model.AggregateRecord;
import org.tapeq.scheduler.model.FileRecord;

/**
 * The table of contents of an aggregate, stored as its first tar member {@value #MEMBER_NAME} (see
 * docs/tape-format.md). It says where every member's data starts in the tape file, so a file can be read
 * by positioning at its block without reading the members before it.
 *
 * @param format        {@value #FORMAT}
 * @param barcode       cartridge the aggregate was written to
 * @param createdMillis when the aggregate was planned (epoch milliseconds; stored as ISO-8601)
 * @param blockSize     tape block size the aggregate was planned for
 * @param length        bytes in the tape file, end-of-archive marker included
 * @param members       in tape order
 */
public record Manifest(String format, String barcode, String family, String dataset, long createdMillis,
                       int blockSize, long length, List<Entry> members) {

    /** The value of the {@code format} field of this version of the format. */
    public static final String FORMAT = "tapeq-aggregate-1";
    /** Name of the first tar member of every aggregate. */
    public static final String MEMBER_NAME = "TAPEQ-MANIFEST.json";

    private static final String WHAT = "manifest";

    public Manifest {
        Objects.requireNonNull(format, "format");
        Objects.requireNonNull(barcode, "barcode");
        Objects.requireNonNull(family, "family");
        members = List.copyOf(members);
    }

    /**
     * One member.
     *
     * @param name     its name in the tar archive (the pnfsid)
     * @param offset   bytes from the start of the tape file to the member's first data byte
     * @param checksum {@code adler32:%08x}, another {@code type:hex} dCache announced, or null (size-only)
     */
    public record Entry(String name, String pnfsid, long size, long offset, String checksum, String storageClass,
                        String path, String dataset) {
        public Entry {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(pnfsid, "pnfsid");
        }
    }

    /** Blocks the tape file occupies when written in blocks of {@code blockSize} (the last one may be short). */
    public long blockCount(int blockSize) {
        requirePositive(blockSize);
        return (length + blockSize - 1) / blockSize;
    }

    /**
     * Catalog records of the members of this aggregate, stored as tape file {@code tapeFile} starting at
     * block {@code startBlock} of {@code cartridge}. The arguments say where the tape file is; the block of
     * each member is {@code startBlock + offset / blockSize}, so {@code blockSize} must be the block size the
     * tape file was written with.
     */
    public List<FileRecord> toFileRecords(String cartridge, int tapeFile, long startBlock, int blockSize) {
        requirePositive(blockSize);
        List<FileRecord> records = new ArrayList<>(members.size());
        for (Entry e : members) {
            records.add(new FileRecord(e.pnfsid(), cartridge, tapeFile, startBlock + e.offset() / blockSize,
                    e.offset(), e.size(), e.checksum(), e.storageClass(), e.path(), e.dataset(), -1));
        }
        return records;
    }

    /** The catalog record of this aggregate at the given place; {@code writtenAt} is the catalog commit time. */
    public AggregateRecord toAggregateRecord(String cartridge, int tapeFile, long startBlock, int blockSize,
                                             long writtenAt) {
        return new AggregateRecord(cartridge, tapeFile, startBlock, blockCount(blockSize), blockSize, length,
                members.size(), family, dataset, writtenAt);
    }

    /**
     * The JSON document: UTF-8, one field per line and one member per line, so that it stays readable with
     * {@code tar -xOf} and its size grows only by one line per member.
     */
    byte[] toJson() {
        StringBuilder sb = new StringBuilder(256 + members.size() * 256);
        sb.append("{\n");
        Json.line(sb, "format", Json.quote(format), false);
        Json.line(sb, "barcode", Json.quote(barcode), false);
        Json.line(sb, "family", Json.quote(family), false);
        Json.line(sb, "dataset", Json.quote(dataset), false);
        Json.line(sb, "created", Json.quote(Json.instant(createdMillis)), false);
        Json.line(sb, "block_size", Integer.toString(blockSize), false);
        Json.line(sb, "length", Long.toString(length), false);
        sb.append("  \"members\": [");
        for (int i = 0; i < members.size(); i++) {
            Entry e = members.get(i);
            ObjectNode node = Json.object();
            node.put("name", e.name());
            node.put("pnfsid", e.pnfsid());
            node.put("size", e.size());
            node.put("offset", e.offset());
            node.put("checksum", e.checksum());
            node.put("storage_class", e.storageClass());
            node.put("path", e.path());
            node.put("dataset", e.dataset());
            sb.append(i == 0 ? "\n    " : ",\n    ").append(Json.compact(node));
        }
        sb.append(members.isEmpty() ? "]\n}\n" : "\n  ]\n}\n");
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Parses and checks a manifest document. */
    static Manifest fromJson(byte[] json) throws TapeFormatException {
        ObjectNode root = Json.parseObject(json, WHAT);
        Json.requireFormat(root, FORMAT, WHAT);
        String barcode = Json.text(root, "barcode", WHAT);
        String family = Json.text(root, "family", WHAT);
        String dataset = Json.textOrNull(root, "dataset", WHAT);
        long created = Json.instant(root, "created", WHAT);
        int blockSize = Json.positiveInt(root, "block_size", WHAT);
        long length = Json.nonNegative(root, "length", WHAT);
        JsonNode array = root.get("members");
        if (array == null || !array.isArray()) {
            throw new TapeFormatException(WHAT + ": field 'members' must be an array");
        }
        List<Entry> entries = new ArrayList<>(array.size());
        long end = 0;
        for (int i = 0; i < array.size(); i++) {
            JsonNode m = array.get(i);
            String what = WHAT + " member " + i;
            if (!m.isObject()) {
                throw new TapeFormatException(what + " is not a JSON object");
            }
            Entry e = new Entry(Json.text(m, "name", what), Json.text(m, "pnfsid", what),
                    Json.nonNegative(m, "size", what), Json.nonNegative(m, "offset", what),
                    Json.textOrNull(m, "checksum", what), Json.textOrNull(m, "storage_class", what),
                    Json.textOrNull(m, "path", what), Json.textOrNull(m, "dataset", what));
            if (e.offset() < end || e.size() > length - e.offset()) {
                throw new TapeFormatException(what + " (" + TarFormat.printable(e.name()) + ") at offset "
                        + e.offset() + " with " + e.size() + " bytes overlaps the previous member or lies outside "
                        + "the " + length + " bytes of the tape file");
            }
            end = e.offset() + e.size();
            entries.add(e);
        }
        return new Manifest(FORMAT, barcode, family, dataset, created, blockSize, length, entries);
    }

    private static void requirePositive(int blockSize) {
        if (blockSize <= 0) {
            throw new IllegalArgumentException("block size must be positive: " + blockSize);
        }
    }
}
