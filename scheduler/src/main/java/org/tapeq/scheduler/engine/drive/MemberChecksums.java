package org.tapeq.scheduler.engine.drive;

import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;

import org.tapeq.scheduler.format.Checksums;
import org.tapeq.scheduler.format.MemberSplitter;
import org.tapeq.scheduler.tape.StageFiles;

/**
 * The Adler-32 of each member over one read of a tape file from its first byte, to compare with the checksums
 * recorded for them: a write's read-back, a cartridge's verification. Nothing is stored; bytes between members
 * are dropped. Written by the backend's copy thread, read on the loop once the read completed.
 */
public final class MemberChecksums extends OutputStream {

    /** One member: where its data begins in the tape file, its length, and its recorded checksum (or null). */
    public record Member(long offset, long size, String checksum) {
    }

    private final List<Member> members;
    private final MemberSplitter sink;
    private boolean closed;

    /** {@code members} in tape-file order. */
    public MemberChecksums(List<Member> members) {
        this.members = List.copyOf(members);
        List<StageFiles.Member> probes = new ArrayList<>(members.size());
        for (Member m : members) {
            probes.add(new StageFiles.Member(null, m.offset(), m.size(), m.checksum()));
        }
        this.sink = new MemberSplitter(probes, i -> {
            throw new IllegalStateException("a checksum probe has no file");
        }, false);
    }

    @Override
    public void write(int b) {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) {
        sink.write(b, off, len);
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            sink.close();
        }
    }

    /** Bytes received. */
    public long delivered() {
        return sink.delivered();
    }

    /** Whether every byte of member {@code i} was received. */
    public boolean complete(int i) {
        close();
        return sink.written(i) == members.get(i).size();
    }

    /** The Adler-32 computed for member {@code i}, or null when no bytes arrived at all (a size-only library). */
    public String checksum(int i) {
        close();
        return sink.checksum(i);
    }

    /** Whether member {@code i}'s computed Adler-32 contradicts its recorded checksum. */
    public boolean contradicts(int i) {
        return Checksums.contradicts(members.get(i).checksum(), checksum(i));
    }

    /**
     * What is wrong with a read-back of a tape file written with {@code expected} bytes, for which the library
     * reported {@code delivered} bytes: fewer or more bytes than written, a member not received whole, or the
     * first member whose checksum differs; null if nothing. A library that reports every byte read but hands
     * none to the sink (size-only) has only the length to compare.
     */
    public String mismatch(long delivered, long expected) {
        close();
        if (delivered != expected) {
            return "read back " + delivered + " bytes, " + expected + " were written";
        }
        if (sink.delivered() == 0 && expected > 0) {
            return null;
        }
        if (sink.delivered() != delivered) {
            return "the library reports " + delivered + " bytes read back, " + sink.delivered() + " arrived";
        }
        for (int i = 0; i < members.size(); i++) {
            if (!complete(i)) {
                return "member " + i + " read back " + sink.written(i) + " of its " + members.get(i).size()
                        + " bytes";
            }
            if (contradicts(i)) {
                return "member " + i + " has " + checksum(i) + ", manifest has " + members.get(i).checksum();
            }
        }
        return null;
    }
}
