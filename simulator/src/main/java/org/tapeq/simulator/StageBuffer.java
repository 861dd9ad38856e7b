package org.tapeq.simulator;

import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.RequestOrigin;
import org.tapeq.scheduler.model.StageRequest;
import org.tapeq.scheduler.model.StageSpace;
import org.tapeq.scheduler.time.EventLoop;
import org.tapeq.workload.SimOptions;

/**
 * A scenario's {@code stageBuffer:} (disk-buffer back-pressure): the pool's stage buffer as the engine's
 * {@link StageSpace}. A file takes its size from when its read is granted until the pool has moved it on; the pool
 * moves staged files on one after the other at the drain rate, and a file whose request failed frees its room at
 * once. A read that does not fit waits with its drive (the engine's {@code WAITING_SPACE}) until room is freed,
 * for every policy alike; a read is always granted when the buffer is empty.
 *
 * <p>For {@code endit} (given each file's cartridge) it adds ENDIT's own guard on its {@code in/} directory (neicnordic/endit,
 * {@code tsmretriever.pl}, {@code checkfree()}, thresholds in {@code Endit.pm}): no new retrieve (a cartridge
 * other than the one being read) starts while more than {@code retriever_backlogthreshold} (10 %) of the buffer is
 * used, and a running one goes on only while at most {@code retriever_killthreshold} (95 %) is.
 *
 * <p>The requests get a target (so the engine asks for room, as for a pool's stage) whose bytes are discarded.
 */
final class StageBuffer implements StageSpace {

    /** ENDIT's {@code retriever_backlogthreshold} default: above this share no new worker starts. */
    static final double ENDIT_BACKLOG = 0.10;
    /** ENDIT's {@code retriever_killthreshold} default: above this share running workers are killed. */
    static final double ENDIT_KILL = 0.95;

    private static final Path NOWHERE = Path.of("simulated-stage-target");
    /** Opens a target that swallows what is written: the simulator keeps no bytes. */
    static final RequestOrigin DISCARD = new RequestOrigin() {
        @Override
        public String name() {
            return "simulated pool";
        }

        @Override
        public SeekableByteChannel openTarget(StageRequest request) {
            return new Discard();
        }
    };

    private final EventLoop loop;
    private final long capacity;
    private final double bytesPerMilli;
    private final Runnable spaceFreed;
    private final Map<String, String> cartridgeOf;
    private final Map<Long, Long> reserved = new HashMap<>();
    private long used;
    private long drainedUntil;
    private String reading;

    /**
     * @param spaceFreed  tells the engine that room was freed ({@code Scheduler.spaceFreed})
     * @param cartridgeOf each file's cartridge, for ENDIT's guard; null without it
     */
    StageBuffer(EventLoop loop, SimOptions.StageBuffer options, Runnable spaceFreed, Map<String, String> cartridgeOf) {
        this.loop = loop;
        this.capacity = options.bytes();
        this.bytesPerMilli = options.drainBytesPerSecond() / 1000;
        this.spaceFreed = spaceFreed;
        this.cartridgeOf = cartridgeOf;
    }

    /** A request with a target whose bytes go nowhere, so that the engine asks this buffer for room. */
    static StageRequest withTarget(StageRequest r) {
        return StageRequest.named(r.id(), r.pnfsid(), r.size(), r.storageClass(), r.path(), r.group(), r.activity(),
                r.priority(), r.deadline(), (id, pnfsid) -> NOWHERE, DISCARD);
    }

    @Override
    public boolean tryReserve(List<Claim> claims) {
        long need = 0;
        for (Claim c : claims) {
            if (!reserved.containsKey(c.request().id())) {
                need += c.bytes();
            }
        }
        if (need == 0) {
            return true;
        }
        if (used > 0 && !fits(claims, need)) {
            return false;
        }
        for (Claim c : claims) {
            reserved.putIfAbsent(c.request().id(), c.bytes());
        }
        if (cartridgeOf != null) {
            reading = cartridgeOf.get(claims.get(0).request().pnfsid());
        }
        used += need;
        return true;
    }

    private boolean fits(List<Claim> claims, long need) {
        if (cartridgeOf == null) {
            return used + need <= capacity;
        }
        boolean newRetrieve = !cartridgeOf.get(claims.get(0).request().pnfsid()).equals(reading);
        return newRetrieve ? used <= capacity * ENDIT_BACKLOG : used + need <= capacity * ENDIT_KILL;
    }

    /** A request ended: a staged file is moved on by the pool in its turn, a failed one frees its room now. */
    void ended(StageRequest request, Outcome outcome) {
        Long bytes = reserved.remove(request.id());
        if (bytes == null) {
            return;
        }
        if (!(outcome instanceof Outcome.Staged)) {
            release(bytes);
            return;
        }
        long start = Math.max(loop.now(), drainedUntil);
        drainedUntil = start + (long) Math.ceil(bytes / bytesPerMilli);
        loop.schedule(drainedUntil - loop.now(), () -> release(bytes));
    }

    private void release(long bytes) {
        used -= bytes;
        spaceFreed.run();
    }

    /** Swallows writes; only its position and size move. */
    private static final class Discard implements SeekableByteChannel {
        private long position;
        private long size;
        private boolean open = true;

        @Override
        public int read(ByteBuffer dst) {
            return -1;
        }

        @Override
        public int write(ByteBuffer src) {
            int n = src.remaining();
            src.position(src.limit());
            position += n;
            size = Math.max(size, position);
            return n;
        }

        @Override
        public long position() {
            return position;
        }

        @Override
        public SeekableByteChannel position(long newPosition) {
            position = newPosition;
            return this;
        }

        @Override
        public long size() {
            return size;
        }

        @Override
        public SeekableByteChannel truncate(long s) {
            size = Math.min(size, s);
            return this;
        }

        @Override
        public boolean isOpen() {
            return open;
        }

        @Override
        public void close() {
            open = false;
        }
    }
}
