package org.tapeq.scheduler.format;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

import org.tapeq.protocol.PnfsIds;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.SourceAccess;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.DescribedSource;
import org.tapeq.scheduler.tape.TapeFileSource;

/**
 * An aggregate ready to be written: its checked members, its manifest and the position of every member in
 * the tape file. Immutable; {@link #source()} may be written any number of times (a retry on another drive).
 */
public final class AggregatePlan {
    private final List<AggregateMember> members;
    private final AggregateLayout layout;
    private final int blockSize;

    /** When a member's announced Adler-32 is compared with its file's bytes. */
    public enum ChecksumCheck {
        /**
         * Before the plan is made: every member's file is read once here. For a source whose checksums are
         * themselves to be checked (a repack's spool), and after a write failed on a source, to find which member
         * is bad.
         */
        BEFORE_WRITE,
        /**
         * As the bytes stream to tape ({@link AggregateWriter} compares each member's Adler-32 as it copies it and
         * fails the write with a {@link SourceChangedException} naming it): a member with an announced Adler-32 is
         * only looked at here (link, type, size), not read, so a flushed file is read once, by the write. A member
         * without one is still read here, since the manifest written before the data records it.
         */
        WHILE_WRITING
    }

    /** A member left out of the plan, and why ({@link FaultKind#SOURCE}). */
    public record Rejected(AggregateMember member, TapeFault fault) {
    }

    /**
     * The outcome of {@link #prepare}: a plan of the members that passed (possibly none) and the rejected
     * ones, in the order given.
     */
    public record Prepared(AggregatePlan plan, List<Rejected> rejected) {
        public Prepared {
            rejected = List.copyOf(rejected);
        }
    }

    private AggregatePlan(List<AggregateMember> members, AggregateLayout layout, int blockSize) {
        this.members = List.copyOf(members);
        this.layout = layout;
        this.blockSize = blockSize;
    }

    /**
     * Checks the members and lays out the aggregate. <b>Blocking I/O</b>: reads every member that has a source
     * file once, so call it off the event loop.
     *
     * <p>For a member with a source, the file must exist, be a regular file (a symbolic link is refused, not
     * followed) and have exactly the announced size. Without a checksum its Adler-32 is computed; an announced
     * Adler-32 is verified; another checksum type is kept as announced and <em>not</em> verified (tapeq
     * computes only Adler-32). A member without a source is taken as announced, with no I/O.
     *
     * <p>A member whose pnfsid is not a pnfsid (1 to 64 hex digits), that repeats an earlier pnfsid, or whose
     * file fails a check is rejected with a {@link FaultKind#SOURCE} fault naming the file and the reason;
     * the other members are planned without it.
     *
     * @param cartridge     barcode of the cartridge the aggregate is for (recorded in the manifest)
     * @param createdMillis creation time recorded in the manifest and used as the members' tar mtime
     * @param blockSize     block size of the library that writes it
     */
    public static Prepared prepare(String cartridge, String family, String dataset, long createdMillis,
                                   List<AggregateMember> members, int blockSize) {
        return prepare(cartridge, family, dataset, createdMillis, members, blockSize, ChecksumCheck.BEFORE_WRITE);
    }

    /**
     * As {@link #prepare(String, String, String, long, List, int)}, with announced Adler-32 checksums compared
     * when {@code check} says; with {@link ChecksumCheck#WHILE_WRITING} a member whose file's bytes contradict its
     * announced checksum passes here and fails the write.
     */
    public static Prepared prepare(String cartridge, String family, String dataset, long createdMillis,
                                   List<AggregateMember> members, int blockSize, ChecksumCheck check) {
        Objects.requireNonNull(cartridge, "cartridge");
        Objects.requireNonNull(check, "check");
        Objects.requireNonNull(family, "family");
        if (blockSize <= 0) {
            throw new IllegalArgumentException("block size must be positive: " + blockSize);
        }
        List<AggregateMember> accepted = new ArrayList<>(members.size());
        List<Rejected> rejected = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (AggregateMember member : members) {
            String problem = nameProblem(member, names);
            AggregateMember checked = member;
            if (problem == null) {
                try {
                    checked = check(member, check);
                } catch (SourceProblem e) {
                    problem = e.getMessage();
                }
            }
            if (problem != null) {
                String subject = member.source() == null ? "member " + member.pnfsid()
                        : member.source() + " (" + member.pnfsid() + ")";
                rejected.add(new Rejected(member, new TapeFault(FaultKind.SOURCE, subject + " " + problem)));
            } else {
                names.add(member.pnfsid());
                accepted.add(checked);
            }
        }
        AggregateLayout layout = AggregateLayout.compute(cartridge, family, dataset, createdMillis, blockSize,
                accepted);
        return new Prepared(new AggregatePlan(accepted, layout, blockSize), rejected);
    }

    private static String nameProblem(AggregateMember member, Set<String> names) {
        if (!PnfsIds.isPnfsId(member.pnfsid())) {
            return "has no valid pnfsid (1-" + PnfsIds.MAX_LENGTH + " hexadecimal digits): '"
                    + TarFormat.printable(member.pnfsid()) + "'";
        }
        if (names.contains(member.pnfsid())) {
            return "appears twice in the aggregate";
        }
        return null;
    }

    /** The member with its checksum normalised or computed. */
    private static AggregateMember check(AggregateMember member, ChecksumCheck when) throws SourceProblem {
        String checksum = member.checksum();
        boolean adler = Checksums.isAdler32(checksum);
        if (adler) {
            try {
                checksum = Checksums.normalize(checksum);
            } catch (IllegalArgumentException e) {
                throw new SourceProblem("has a malformed announced checksum: " + e.getMessage());
            }
        }
        if (member.source() == null) {
            return member.withChecksum(checksum);
        }
        String problem = SourceFiles.problem(member);
        if (problem != null) {
            throw new SourceProblem(problem);
        }
        if (checksum != null && !adler) {
            return member;
        }
        if (checksum != null && when == ChecksumCheck.WHILE_WRITING) {
            return member.withChecksum(checksum);
        }
        String actual;
        try {
            actual = Checksums.format(SourceFiles.adler32(member));
        } catch (IOException e) {
            throw new SourceProblem(e.getMessage());
        }
        if (checksum != null && !checksum.equals(actual)) {
            throw new SourceProblem("has checksum " + actual + ", but " + checksum + " was announced");
        }
        return member.withChecksum(actual);
    }

    /**
     * The same aggregate for another cartridge and with only the members {@code keep} accepts, laid out
     * again. No I/O: the members were checked by {@link #prepare}; the write re-checks them as it streams.
     */
    public AggregatePlan relayout(String cartridge, java.util.function.Predicate<AggregateMember> keep) {
        Objects.requireNonNull(cartridge, "cartridge");
        List<AggregateMember> kept = new ArrayList<>(members.size());
        for (AggregateMember m : members) {
            if (keep.test(m)) {
                kept.add(m);
            }
        }
        Manifest old = manifest();
        AggregateLayout layout = AggregateLayout.compute(cartridge, old.family(), old.dataset(), old.createdMillis(),
                blockSize, kept);
        return new AggregatePlan(kept, layout, blockSize);
    }

    /** The members in tape order, with their checksums as they appear in the manifest. */
    public List<AggregateMember> members() {
        return members;
    }

    public Manifest manifest() {
        return layout.manifest;
    }

    /** Block size the plan was made for (recorded in the manifest). */
    public int blockSize() {
        return blockSize;
    }

    /** Bytes in the tape file: a multiple of 512. */
    public long length() {
        return layout.manifest.length();
    }

    /** Blocks the tape file takes when written in blocks of {@code blockSize}; the last may be short. */
    public long blockCount(int blockSize) {
        return layout.manifest.blockCount(blockSize);
    }

    /** Offset of member {@code memberIndex}'s first data byte from the start of the tape file. */
    public long offsetOf(int memberIndex) {
        return layout.manifest.members().get(memberIndex).offset();
    }

    /**
     * Absolute block address of the block holding member {@code memberIndex}'s first data byte, for a tape
     * file whose first block is {@code startBlockOfTapeFile}.
     */
    public long blockOf(int memberIndex, long startBlockOfTapeFile) {
        return startBlockOfTapeFile + offsetOf(memberIndex) / blockSize;
    }

    /** Bytes to skip in the block {@link #blockOf} to reach the member's first data byte. */
    public long skipBytes(int memberIndex) {
        return offsetOf(memberIndex) % blockSize;
    }

    /**
     * The tape file. Its {@code writeTo} streams the tar archive, reading each member from its source file and
     * checking it again: a file that changed since {@link #prepare} fails the write with a
     * {@link SourceChangedException} naming it. It fails with a plain {@link IOException} before writing
     * anything if a member is size-only (has no data), and while writing if a member or the end of the
     * archive lands elsewhere than the manifest says.
     */
    public TapeFileSource source() {
        return source(AggregateWriter.SOURCE_FILES);
    }

    /**
     * The tape file a described aggregate stands for ({@link TapeFileSource#described}), its members read through
     * {@code access} and checked as {@link #source()} checks them: how a data mover on the shared pool filesystem
     * writes a flush from {@code out/} itself. A description that is not this format's manifest is refused.
     */
    public static TapeFileSource describedSource(DescribedSource described, SourceAccess access)
            throws TapeFormatException {
        return AggregateWriter.of(described, access);
    }

    AggregateLayout layout() {
        return layout;
    }

    /** The tape file with the members' data taken from elsewhere (tests). */
    TapeFileSource source(AggregateWriter.MemberData data) {
        return new AggregateWriter(members, layout, data);
    }

    /** A reason to reject a member, without the member's name. */
    private static final class SourceProblem extends Exception {
        SourceProblem(String reason) {
            super(reason, null, false, false);
        }
    }
}
