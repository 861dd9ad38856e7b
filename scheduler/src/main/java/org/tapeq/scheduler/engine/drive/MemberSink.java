package org.tapeq.scheduler.engine.drive;

import java.io.OutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

import org.tapeq.scheduler.engine.queue.StageItem;
import org.tapeq.scheduler.format.MemberSplitter;
import org.tapeq.scheduler.model.StageRequest;
import org.tapeq.scheduler.tape.ByteSink;
import org.tapeq.scheduler.tape.StageFiles;

/**
 * Where one read of a tape-file range for a pass goes: each requested member to its stage target, opened by its
 * request's origin ({@link MemberSplitter} splits the bytes). As a {@link ByteSink} it also has a described form
 * ({@link StageFiles}: the targets, their offsets, sizes and checksums), which a library whose data mover writes
 * the pool files itself sends instead of streaming the bytes here; the mover's report then answers the same
 * questions ({@link #written}, {@link #checksum}, {@link #error}), so the pass checks both alike.
 *
 * <p>Design notes. Streamed bytes are split on the library's copy thread; each member whose file is whole is queued
 * there and handed to the loop in batches (one loop task per batch, posted only while none is waiting), where the
 * pass may answer it before the read ends. The member's slots in the splitter are final once it is queued, so the
 * loop reads them safely; everything else is read on the loop only after the read's end. {@link #detach} at that
 * end drops news still on its way, so a member the end has already decided is never answered twice.
 */
final class MemberSink implements StageFiles {

    /** Told on the loop of a member of {@code sink} whose file is complete while the read goes on. */
    @FunctionalInterface
    interface Complete {
        void member(MemberSink sink, int index);
    }

    private final List<StageItem> items;
    private final List<Member> members;
    private final MemberSplitter split;
    private final Executor loop;
    private final Complete complete;
    /** Members complete on the copy thread, not yet handed to the loop. */
    private final Queue<Integer> completed = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean drainPosted = new AtomicBoolean();
    /** On the loop: the read's end was handled; later news of complete members is dropped. */
    private boolean detached;

    /**
     * {@code base} is the tape-file offset of the first byte the read delivers; {@code complete} hears on
     * {@code loop} of each member whose file is complete (all bytes, closed, no error) while the read goes on, in
     * batches, until {@link #detach}.
     */
    MemberSink(List<StageItem> items, long base, Executor loop, Complete complete) {
        this.items = items;
        List<Member> m = new ArrayList<>(items.size());
        for (StageItem it : items) {
            m.add(new Member(target(it), it.offset() - base, it.size(), it.checksum()));
        }
        this.members = List.copyOf(m);
        this.loop = loop;
        this.complete = complete;
        this.split = new MemberSplitter(members, this::open, false, this::completeOnCopyThread);
    }

    /** On the copy thread: queued for the loop, one task for every batch that arrives while none is waiting. */
    private void completeOnCopyThread(int i) {
        completed.add(i);
        if (drainPosted.compareAndSet(false, true)) {
            try {
                loop.execute(this::drain);
            } catch (RejectedExecutionException e) {
                // the loop stopped: nothing is answered any more, the read's end included
            }
        }
    }

    private void drain() {
        drainPosted.set(false); // before polling: a member added after this posts the next task
        for (Integer i = completed.poll(); i != null; i = completed.poll()) {
            if (!detached) {
                complete.member(this, i);
            }
        }
    }

    /** On the loop, when the read's end is handled: no member is reported complete after this. */
    void detach() {
        detached = true;
    }

    private static Path target(StageItem it) {
        return it.request() == null ? null : it.request().target();
    }

    /** The target of member {@code i}, opened by its request's origin (which may hold the directory open). */
    private java.nio.channels.SeekableByteChannel open(int i) throws java.io.IOException {
        StageRequest r = items.get(i).request();
        return r.origin().openTarget(r);
    }

    /** This sink as the library takes it: the bytes, or its described form. */
    ByteSink byteSink() {
        return new ByteSink() {
            @Override
            public OutputStream open() {
                return split;
            }

            @Override
            public StageFiles files() {
                return MemberSink.this;
            }

            @Override
            public void withoutBytes(long delivered) {
                split.assumeDelivered(delivered);
            }
        };
    }

    @Override
    public List<Member> members() {
        return members;
    }

    @Override
    public void reported(long delivered, List<Result> results) {
        split.report(delivered, results);
    }

    void close() {
        split.close();
    }

    /** Bytes this sink received (or the mover reported read). */
    long delivered() {
        return split.delivered();
    }

    /** Members with a target: bytes received. Size-only members count bytes too. */
    long written(int i) {
        return split.written(i);
    }

    /** The Adler-32 of member {@code i} as {@code adler32:hex}, or null when no bytes were delivered at all. */
    String checksum(int i) {
        return split.checksum(i);
    }

    /** Why member {@code i}'s target could not be written, or null. */
    String error(int i) {
        return split.error(i);
    }

    /**
     * Accounts bytes a size-only backend did not deliver ({@link MemberSplitter#assumeDelivered}); nothing if the
     * backend's copy thread did it already ({@link ByteSink#withoutBytes}).
     */
    void assumeDelivered(long total) {
        split.assumeDelivered(total);
    }
}
