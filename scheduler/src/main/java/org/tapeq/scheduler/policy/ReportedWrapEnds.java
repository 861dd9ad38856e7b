package org.tapeq.scheduler.policy;

import java.util.Arrays;

/**
 * The end-of-wrap positions a drive reports, made into one end per wrap of the media for
 * {@link EstimatedGeometry#withWrapEnds}.
 *
 * <p>Design notes. That READ END OF WRAP POSITION reports only the wraps that hold data, and for the last of them
 * (the wrap holding end of data) the position of end of data rather than the end of the wrap, is inferred from CTA
 * (cern-cta/CTA, {@code tapeserver/castor/tape/tapeserver/RAO}: {@code RAOHelpers.hpp} says the last value is "the
 * last blockId written"; {@code InterpolationFilePositionEstimator::determineWrapNb} handles a one-element list and
 * {@code getFilePosition} takes the number of wraps from the media type, not from the list); it is not checked
 * against IBM's GA32-0928 5.2.20, whose text was not available. What a blank cartridge answers is not known. This
 * class copes with either reading: a full list is kept as reported apart from its last value, a short one is
 * completed. The completed wraps are taken as exact; the last reported wrap and any wraps after it are given the
 * mean length of the wraps before it (the cartridge's own, which already includes its capacity offset or
 * compression), the last one no shorter than reported. With fewer than two reported wraps there is nothing to learn
 * from, and the nominal estimate stays.
 *
 * <p>Where this differs from CTA's {@code RAOHelpers::improveEndOfLastWrapPositionIfPossible}: CTA's mean is
 * {@code (r[n-1] - r[0]) / n} over all n reported values (the last one included, divided by n rather than n - 1),
 * and it replaces the last value by {@code r[n-2] + mean} unconditionally, even where that is before the reported
 * end of data; here the mean is {@code r[n-2] / (n-1)} over the completed wraps only (wrap 0 measured from block 0),
 * the last value becomes the larger of the reported one and {@code r[n-2] + mean}, and the list is extended to the
 * media's wraps, which CTA does not do (it takes bands from the media type and errs for a block past the last
 * value).
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
