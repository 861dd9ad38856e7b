package org.tapeq.scheduler.format;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.Adler32;

import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.tapeq.scheduler.model.SourceAccess;
import org.tapeq.scheduler.tape.DescribedSource;
import org.tapeq.scheduler.tape.TapeFileSource;

/**
 * Streams an aggregate as laid out by {@link AggregateLayout}, counting bytes to check that every member's
 * data starts at the offset in the manifest and that the archive ends at the predicted length.
 */
final class AggregateWriter implements TapeFileSource {
    private static final int OUTPUT_BUFFER = 256 * 1024;

    private final List<AggregateMember> members;
    private final AggregateLayout layout;
    private final MemberData data;

    /** Where the members' bytes come from: their source files, or a generator in tests. */
    interface MemberData {
        /** Fails if the member cannot be written at all; called for every member before any byte is written. */
        void check(AggregateMember member) throws IOException;

        /** Opens the member's data, which must have {@code member.size()} bytes. */
        InputStream open(AggregateMember member) throws IOException;
    }

    /** The members' source files, checked again (no link, regular, same size) before they are opened. */
    static final MemberData SOURCE_FILES = new MemberData() {
        @Override
        public void check(AggregateMember member) throws IOException {
            if (member.source() == null) {
                throw new IOException("member " + member.pnfsid() + " is size-only (no source file): this "
                        + "aggregate can be simulated but not written");
            }
        }

        @Override
        public InputStream open(AggregateMember member) throws IOException {
            String problem = SourceFiles.problem(member);
            if (problem != null) {
                throw new SourceChangedException(member.pnfsid(), member.source(), problem);
            }
            try {
                return SourceFiles.open(member);
            } catch (IOException e) {
                throw new SourceChangedException(member.pnfsid(), member.source(), SourceFiles.describe(e), e);
            }
        }
    };

    AggregateWriter(List<AggregateMember> members, AggregateLayout layout, MemberData data) {
        this.members = members;
        this.layout = layout;
        this.data = data;
    }

    @Override
    public long length() {
        return layout.manifest.length();
    }

    /**
     * The manifest and the members' source files, when every member is a file in a pool's {@code out/} that a data
     * mover on the shared pool filesystem may read ({@link SourceAccess#pooled}); null otherwise (a repack's spool
     * files, size-only members, tests' generated data).
     */
    @Override
    public DescribedSource described() {
        if (data != SOURCE_FILES) {
            return null;
        }
        List<Path> sources = new ArrayList<>(members.size());
        for (AggregateMember m : members) {
            if (m.source() == null || !m.access().pooled()) {
                return null;
            }
            sources.add(m.source());
        }
        return new DescribedSource(Manifest.FORMAT, layout.manifestJson, sources);
    }

    /**
     * The aggregate {@code d} describes, its members read from their sources through {@code access} (a data mover's
     * pool files) and checked as the scheduler checks them ({@link #SOURCE_FILES}: no link, regular, same size, same
     * Adler-32); the bytes are those the scheduler would have streamed. A description that is not a manifest of
     * this format, or names another number of sources than members, is refused.
     */
    static AggregateWriter of(DescribedSource d, SourceAccess access) throws TapeFormatException {
        if (!Manifest.FORMAT.equals(d.format())) {
            throw new TapeFormatException("described tape file of format '" + d.format() + "', not " + Manifest.FORMAT);
        }
        Manifest manifest = Manifest.fromJson(d.description());
        List<Manifest.Entry> entries = manifest.members();
        if (entries.size() != d.sources().size()) {
            throw new TapeFormatException("described aggregate of " + entries.size() + " members names "
                    + d.sources().size() + " source files");
        }
        List<AggregateMember> members = new ArrayList<>(entries.size());
        for (int i = 0; i < entries.size(); i++) {
            Manifest.Entry e = entries.get(i);
            members.add(new AggregateMember(e.pnfsid(), e.size(), e.checksum(), e.storageClass(), e.path(),
                    e.dataset(), d.sources().get(i), access));
        }
        long header = TarFormat.headerLength(TarFormat.fileEntry(Manifest.MEMBER_NAME, d.description().length,
                manifest.createdMillis()));
        return new AggregateWriter(members, new AggregateLayout(manifest, d.description(), header, 0), SOURCE_FILES);
    }

    @Override
    public void writeTo(OutputStream out) throws IOException {
        for (AggregateMember member : members) {
            data.check(member);
        }
        long created = layout.manifest.createdMillis();
        // The counter sits above the buffer, so it counts what the tar writer has emitted, not what reached out.
        CountingOutputStream counter = new CountingOutputStream(new BufferedOutputStream(out, OUTPUT_BUFFER));
        TarArchiveOutputStream tar = TarFormat.newWriter(counter);

        tar.putArchiveEntry(TarFormat.fileEntry(Manifest.MEMBER_NAME, layout.manifestJson.length, created));
        expect(counter, layout.manifestDataOffset, "the manifest's data");
        tar.write(layout.manifestJson);
        tar.closeArchiveEntry();

        byte[] buffer = new byte[SourceFiles.BUFFER_SIZE];
        List<Manifest.Entry> entries = layout.manifest.members();
        for (int i = 0; i < members.size(); i++) {
            AggregateMember member = members.get(i);
            InputStream in = data.open(member);
            tar.putArchiveEntry(TarFormat.fileEntry(member.pnfsid(), member.size(), created));
            expect(counter, entries.get(i).offset(), "the data of member " + i + " (" + member.pnfsid() + ")");
            copy(member, in, tar, buffer);
            tar.closeArchiveEntry();
        }
        tar.finish();
        expect(counter, length(), "the end of the archive");
        counter.flush();
    }

    /** Copies a member's data into the tar stream, checking it is still the data that was prepared. */
    private static void copy(AggregateMember member, InputStream source, OutputStream tar, byte[] buffer)
            throws IOException {
        Adler32 adler = new Adler32();
        long size = member.size();
        try (InputStream in = source) {
            long remaining = size;
            while (remaining > 0) {
                int n = read(member, in, buffer, (int) Math.min(buffer.length, remaining));
                if (n < 0) {
                    throw new SourceChangedException(member.pnfsid(), member.source(),
                            "it ends after " + (size - remaining) + " of " + size + " bytes");
                }
                adler.update(buffer, 0, n);
                tar.write(buffer, 0, n); // a failure here is the tape's, not the file's: not wrapped
                remaining -= n;
            }
            if (read(member, in, buffer, 1) > 0) {
                throw new SourceChangedException(member.pnfsid(), member.source(),
                        "it is longer than " + size + " bytes");
            }
        }
        if (Checksums.isAdler32(member.checksum())) {
            String actual = Checksums.format(adler.getValue());
            if (!actual.equals(member.checksum())) {
                throw new SourceChangedException(member.pnfsid(), member.source(),
                        "its checksum is " + actual + ", not " + member.checksum());
            }
        }
    }

    private static int read(AggregateMember member, InputStream in, byte[] buffer, int length)
            throws SourceChangedException {
        try {
            return in.read(buffer, 0, length);
        } catch (IOException e) {
            throw new SourceChangedException(member.pnfsid(), member.source(), SourceFiles.describe(e), e);
        }
    }

    private static void expect(CountingOutputStream counter, long predicted, String what) throws IOException {
        if (counter.count() != predicted) {
            throw new IOException("aggregate layout mismatch: " + what + " starts at byte " + counter.count()
                    + " of the tape file, but the manifest says " + predicted);
        }
    }
}
