package org.tapeq.scheduler.policy;

import org.tapeq.scheduler.model.MediaType;

/**
 * The scheduler's estimate of where a logical block sits on a serpentine tape (the simulated library's truth is
 * a separate class in tape-sim, {@code TrueWrapMap}, that shares no code with this one). It knows only the nominal
 * figures of the {@link MediaType} and the block size; it is an estimate, not the drive's real map (the drive
 * does not tell us the wrap of a block without a locate, and compression, rewritten blocks and filemarks shift
 * the real positions).
 *
 * <p>Model: the byte offset of block {@code b} is {@code b * blockSize} (filemarks are ignored). Wraps are filled
 * one after the other, {@link MediaType#bytesPerWrap()} bytes each; even wraps run from the beginning of tape
 * (BOT) to the end (EOT), odd wraps back. The wraps are split evenly into {@link MediaType#bands()} bands, wrap
 * {@code w} lying in band {@code w / (wraps / bands)}. Blocks past the nominal capacity are clamped to the end
 * of the last wrap.
 *
 * <p><b>LPOS</b> (longitudinal position) is a fraction of the tape length: 0 at BOT, 1 at EOT. On an even wrap
 * it grows with the block address, on an odd wrap it shrinks.
 */
public final class EstimatedGeometry {

    private final MediaType media;
    private final int blockSize;
    private final long bytesPerWrap;
    private final int wrapsPerBand;
    /** Drive-reported end-of-wrap block addresses (READ END OF WRAP POSITION), or null: nominal wraps. */
    private final long[] wrapEnds;
    /** Locate cost coefficients learnt for this cartridge, or null: {@link LocateCostModel}'s defaults. */
    private final LocateCosts locateCosts;

    public EstimatedGeometry(MediaType media, int blockSize) {
        this(media, blockSize, null, null);
    }

    private EstimatedGeometry(MediaType media, int blockSize, long[] wrapEnds, LocateCosts locateCosts) {
        if (blockSize <= 0) {
            throw new IllegalArgumentException("block size must be positive: " + blockSize);
        }
        if (media.bands() > media.wraps()) {
            throw new IllegalArgumentException("more bands than wraps in " + media.name());
        }
        this.media = media;
        this.blockSize = blockSize;
        this.bytesPerWrap = media.bytesPerWrap();
        this.wrapsPerBand = media.wraps() / media.bands();
        this.wrapEnds = wrapEnds;
        this.locateCosts = locateCosts;
    }

    /**
     * This estimate corrected by the block addresses at which the drive reports each wrap ends ({@code ends[w]}:
     * the first block past wrap w, non-decreasing, one per wrap of the media), as CTA's
     * InterpolationFilePositionEstimator uses them: a block's wrap is the first whose end lies at or past it, and
     * its LPOS is interpolated linearly along that wrap.
     */
    public EstimatedGeometry withWrapEnds(long[] ends) {
        if (ends.length != media.wraps()) {
            throw new IllegalArgumentException(ends.length + " wrap ends for " + media.wraps() + " wraps");
        }
        for (int w = 1; w < ends.length; w++) {
            if (ends[w] < ends[w - 1] || ends[0] <= 0) {
                throw new IllegalArgumentException("wrap ends must be positive and non-decreasing: wrap " + w);
            }
        }
        return new EstimatedGeometry(media, blockSize, ends.clone(), locateCosts);
    }

    /**
     * This estimate with locate cost coefficients learnt from the cartridge's own locates ({@link LocateCostFit}), which
     * {@link LocateCostModel#of(EstimatedGeometry)} then uses instead of its defaults; null: the defaults.
     */
    public EstimatedGeometry withLocateCosts(LocateCosts costs) {
        return new EstimatedGeometry(media, blockSize, wrapEnds, costs);
    }

    /** The learnt locate cost coefficients, or null if none were learnt. */
    public LocateCosts locateCosts() {
        return locateCosts;
    }

    /** Whether the wraps are the drive-reported (or fitted) ones rather than nominal. */
    public boolean hasWrapEnds() {
        return wrapEnds != null;
    }

    /** An estimated head position: the block, its wrap and band, LPOS (0 = BOT, 1 = EOT), and the direction. */
    public record Position(long block, int wrap, int band, double lpos, boolean forward) {
    }

    public MediaType media() {
        return media;
    }

    public int blockSize() {
        return blockSize;
    }

    public int wraps() {
        return media.wraps();
    }

    public int bands() {
        return media.bands();
    }

    public int wrapsPerBand() {
        return wrapsPerBand;
    }

    /** Blocks recorded on one wrap (fractional: a block may straddle a wrap turn). */
    public double blocksPerWrap() {
        return (double) bytesPerWrap / blockSize;
    }

    /** Wrap of a block: {@code byte offset / bytesPerWrap}, clamped to the last wrap. */
    public int wrap(long block) {
        requireBlock(block);
        if (wrapEnds != null) {
            int low = 0;
            int high = wrapEnds.length - 1;
            while (low < high) { // the first wrap whose end lies past the block
                int mid = (low + high) >>> 1;
                if (wrapEnds[mid] > block) {
                    high = mid;
                } else {
                    low = mid + 1;
                }
            }
            return low;
        }
        long wrap = Math.multiplyHigh(block, blockSize) != 0 ? Long.MAX_VALUE : block * blockSize / bytesPerWrap;
        return (int) Math.min(wrap, media.wraps() - 1);
    }

    /** LPOS of a block as a fraction of the tape length, 0 = BOT, 1 = EOT. */
    public double lpos(long block) {
        int wrap = wrap(block);
        if (wrapEnds != null) {
            long first = wrap == 0 ? 0 : wrapEnds[wrap - 1];
            double fraction = (double) (block - first) / Math.max(1, wrapEnds[wrap] - first);
            fraction = Math.min(1.0, Math.max(0.0, fraction));
            return isForward(wrap) ? fraction : 1.0 - fraction;
        }
        double along = ((double) block * blockSize - (double) wrap * bytesPerWrap) / bytesPerWrap;
        along = Math.min(1.0, Math.max(0.0, along));
        return isForward(wrap) ? along : 1.0 - along;
    }

    /** Band of a wrap; the wraps are split evenly, any remainder goes to the last band. */
    public int band(int wrap) {
        return Math.min(wrap / wrapsPerBand, media.bands() - 1);
    }

    /** Whether the wrap runs from BOT to EOT (even wraps) rather than back. */
    public static boolean isForward(int wrap) {
        return (wrap & 1) == 0;
    }

    /** The estimated position of a block. */
    public Position position(long block) {
        int wrap = wrap(block);
        return new Position(block, wrap, band(wrap), lpos(block), isForward(wrap));
    }

    /** Seconds to stream a number of blocks at the native rate. */
    public double readSeconds(long blocks) {
        return (double) blocks * blockSize / media.rateBytesPerSecond();
    }

    /** Seconds to stream one whole wrap at the native rate (LTO-9: about 160 s). */
    public double wrapSeconds() {
        return (double) bytesPerWrap / media.rateBytesPerSecond();
    }

    private static void requireBlock(long block) {
        if (block < 0) {
            throw new IllegalArgumentException("negative block address " + block);
        }
    }

    @Override
    public String toString() {
        return media.name() + " " + media.wraps() + " wraps, " + media.bands() + " bands, " + blockSize + " B blocks"
                + (wrapEnds == null ? "" : ", wrap ends given") + (locateCosts == null ? "" : ", learnt locate costs");
    }
}
