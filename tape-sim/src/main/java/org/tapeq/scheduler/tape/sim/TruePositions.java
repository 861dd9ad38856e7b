package org.tapeq.scheduler.tape.sim;

/**
 * Some blocks of one cartridge with their true head positions precomputed, so that a reference (a lower bound,
 * an oracle order) can price many moves between them with the library's own physics cheaply. Not thread-safe
 * beyond reading; does not move anything.
 */
public final class TruePositions {

    private final TapePhysics physics;
    private final double rate;
    private final long[] blocks;
    private final Head[] heads;
    private final Head loadPoint;

    TruePositions(SimCartridge c, long[] blocks) {
        this.physics = c.physics;
        this.rate = c.media.rateBytesPerSecond();
        this.blocks = blocks.clone();
        this.heads = new Head[blocks.length];
        for (int i = 0; i < blocks.length; i++) {
            heads[i] = c.headAt(c.files.offsetOf(blocks[i]));
        }
        this.loadPoint = c.headAt(0);
    }

    public int size() {
        return blocks.length;
    }

    public long block(int i) {
        return blocks[i];
    }

    /** Milliseconds to move from block {@code i} to block {@code j} (reading through where quicker). */
    public long locateMillis(int i, int j) {
        return physics.locateMillis(heads[i], heads[j], rate);
    }

    /** Milliseconds to move from the load point to block {@code j}. */
    public long fromLoadPointMillis(int j) {
        return physics.locateMillis(loadPoint, heads[j], rate);
    }

    /** Milliseconds to bring the tape from block {@code i} back to the load point for an unload. */
    public long unloadRewindMillis(int i) {
        return physics.unloadRewindMillis(heads[i], loadPoint);
    }

    /** The true wrap of block {@code i}. */
    public int wrap(int i) {
        return heads[i].wrap();
    }

    static long[] wrapEndBlocks(SimCartridge c, int blockSize) {
        TrueWrapMap g = c.geometry;
        long eodBlock = c.files.eodBlock();
        long eodOffset = c.files.eodOffset();
        long[] ends = new long[g.wraps()];
        for (int w = 0; w < ends.length; w++) {
            long endOffset = g.wrapStart(w) + g.wrapCapacity(w);
            if (endOffset >= eodOffset) {
                ends[w] = eodBlock + (endOffset - eodOffset + blockSize - 1) / blockSize;
            } else {
                long low = 0;
                long high = eodBlock;
                while (low < high) { // the first block at or past the end of the wrap
                    long mid = (low + high) >>> 1;
                    if (c.files.offsetOf(mid) < endOffset) {
                        low = mid + 1;
                    } else {
                        high = mid;
                    }
                }
                ends[w] = low;
            }
        }
        return ends;
    }
}
