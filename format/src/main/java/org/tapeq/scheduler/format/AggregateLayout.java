package org.tapeq.scheduler.format;

import java.util.ArrayList;
import java.util.List;

/**
 * Where every byte of an aggregate's tape file goes, computed before anything is written.
 *
 * <h2>Design notes</h2>
 * <p>An aggregate is a tar archive: the manifest member, then one member per file, then the end-of-archive
 * marker (two zero records). Each member is a header (one 512-byte record, or more when a pax extended
 * header precedes it, as for members of 8 GiB or more) followed by its data padded to a whole record. So
 * the data of member {@code i} starts at
 * <pre>
 *   header(manifest) + padded(|manifest|) + sum over j &lt; i of (header(j) + padded(size j)) + header(i)
 * </pre>
 * and the tape file is that sum over all members plus 1024 bytes long; always a multiple of 512.
 *
 * <p><b>The manifest contains these offsets</b>, and its own size moves them. The layout is therefore a
 * fixed point, found by iteration: assume a manifest length {@code m} (starting at 0), compute the offsets
 * and the total length, serialise the manifest, and repeat with its real length until the assumption gives
 * the same offsets as the manifest it produced (same padded length, same header length). The real length
 * is a non-decreasing function of the assumed one (larger offsets never have fewer digits), and the
 * iteration starts below the fixed point, so the sequence only grows and stops after a few rounds
 * (two or three in practice; the bound below only guards against a bug).
 *
 * <p><b>Header lengths are measured, not derived.</b> Rather than restating commons-compress's rules for
 * when it emits pax headers and how long they are, {@link TarFormat#headerLength} lets an identically
 * configured writer emit each header into a counter. Every header field is fixed by the member (name, size,
 * the manifest's creation time, owner tapeq), so the real write produces the same bytes; the writer checks
 * the predicted offsets and length while it writes and fails rather than leave a wrong manifest on tape.
 */
final class AggregateLayout {
    private static final int MAX_ROUNDS = 64;

    final Manifest manifest;
    final byte[] manifestJson;
    /** Offset of the manifest's first data byte (the length of its header). */
    final long manifestDataOffset;
    /** Rounds the iteration took. */
    final int rounds;

    AggregateLayout(Manifest manifest, byte[] manifestJson, long manifestDataOffset, int rounds) {
        this.manifest = manifest;
        this.manifestJson = manifestJson;
        this.manifestDataOffset = manifestDataOffset;
        this.rounds = rounds;
    }

    /** Lays out members whose names are valid, distinct tar member names (pnfsids). */
    static AggregateLayout compute(String barcode, String family, String dataset, long createdMillis,
                                   int blockSize, List<AggregateMember> members) {
        int n = members.size();
        long[] headers = new long[n];
        for (int i = 0; i < n; i++) {
            AggregateMember m = members.get(i);
            headers[i] = TarFormat.headerLength(TarFormat.fileEntry(m.pnfsid(), m.size(), createdMillis));
        }
        long assumed = 0;
        for (int round = 0; round < MAX_ROUNDS; round++) {
            long manifestHeader = TarFormat.headerLength(
                    TarFormat.fileEntry(Manifest.MEMBER_NAME, assumed, createdMillis));
            long position = manifestHeader + TarFormat.padded(assumed);
            List<Manifest.Entry> entries = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                AggregateMember m = members.get(i);
                position = Math.addExact(position, headers[i]);
                entries.add(new Manifest.Entry(m.pnfsid(), m.pnfsid(), m.size(), position, m.checksum(),
                        m.storageClass(), m.path(), m.dataset()));
                position = Math.addExact(position, TarFormat.padded(m.size()));
            }
            long length = position + TarFormat.END_OF_ARCHIVE;
            Manifest manifest = new Manifest(Manifest.FORMAT, barcode, family, dataset, createdMillis, blockSize,
                    length, entries);
            byte[] json = manifest.toJson();
            long actualHeader = TarFormat.headerLength(
                    TarFormat.fileEntry(Manifest.MEMBER_NAME, json.length, createdMillis));
            if (TarFormat.padded(json.length) == TarFormat.padded(assumed) && actualHeader == manifestHeader) {
                return new AggregateLayout(manifest, json, manifestHeader, round + 1);
            }
            assumed = json.length;
        }
        throw new IllegalStateException("aggregate layout did not converge in " + MAX_ROUNDS + " rounds ("
                + n + " members)");
    }
}
