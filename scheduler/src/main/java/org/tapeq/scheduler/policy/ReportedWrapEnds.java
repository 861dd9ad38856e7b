package org.tapeq.scheduler.policy;

import java.util.Arrays;

/**
 * The end-of-wrap positions a drive reports, made into one end per wrap of the media for
 * {@link EstimatedGeometry#withWrapEnds}.
 *
 * <p>Design notes. READ END OF WRAP POSITION reports only the wraps that hold data, and for the last of them (the
 * wrap holding end of data) the position of end of data, not the end of the wrap (IBM LTO SCSI Reference
 * GA32-0928, 5.2.20; CTA's {@code RAOHelpers::improveEndOfLastWrapPositionIfPossible} replaces that last value for
 * the same reason). So a partly written cartridge reports fewer ends than the media has wraps, and the last one too
 * early. The completed wraps are exact; the wrap holding end of data and the unwritten wraps after it are given the
 * mean length of the completed ones (the cartridge's own, which already includes its capacity offset or
 * compression), the wrap holding end of data no shorter than what it holds. With no completed wrap there is
 * nothing to learn from, and the nominal estimate stays.
 */
final class ReportedWrapEnds {

    private ReportedWrapEnds() {
    }

    /**
     * {@code reported} ({@code reported[w]}: first block past wrap w, the last one at end of data) completed to
     * {@code wraps} ends. Throws {@link IllegalArgumentException} naming the problem for more ends than wraps, ends
     * that go backwards, or no completed wrap.
     */
    static long[] complete(long[] reported, int wraps) {
        int k = reported.length;
        if (k > wraps) {
            throw new IllegalArgumentException("the drive reports " + k + " wraps, the media has " + wraps);
        }
        if (k < 2) {
            throw new IllegalArgumentException("the drive reports " + k + " wrap" + (k == 1 ? " (the one holding"
                    + " end of data)" : "s") + ": no completed wrap to measure");
        }
        for (int w = 1; w < k; w++) {
            if (reported[w] < reported[w - 1] || reported[0] <= 0) {
                throw new IllegalArgumentException("reported wrap ends must be positive and non-decreasing: wrap "
                        + w);
            }
        }
        long[] ends = Arrays.copyOf(reported, wraps);
        long mean = Math.max(1, reported[k - 2] / (k - 1));
        ends[k - 1] = Math.max(reported[k - 1], reported[k - 2] + mean);
        for (int w = k; w < wraps; w++) {
            ends[w] = ends[w - 1] + mean;
        }
        return ends;
    }
}
