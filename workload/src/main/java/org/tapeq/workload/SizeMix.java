package org.tapeq.workload;

import java.util.SplittableRandom;

import org.tapeq.config.Units;

/**
 * File sizes drawn log-normally around a median and cut to [min, max]: the spread of real experiment files
 * (O(10 kB) to O(10 GB), most near a few GB). {@code sigma} 0 gives every file the median.
 */
public record SizeMix(long median, double sigma, long min, long max) implements Sizes {

    public SizeMix {
        if (min < 1 || median < min || median > max) {
            throw new IllegalArgumentException("need 1 <= min <= median <= max, not min " + min + ", median "
                    + median + ", max " + max);
        }
    }

    @Override
    public long draw(SplittableRandom random) {
        if (sigma == 0) {
            return median;
        }
        // Box-Muller: one standard normal from two uniforms
        double u = 1 - random.nextDouble();
        double normal = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random.nextDouble());
        long size = Math.round(median * Math.exp(sigma * normal));
        return Math.max(min, Math.min(max, size));
    }

    @Override
    public String describe() {
        return "median " + Units.roughSize(median) + " (sigma " + sigma + ", " + Units.roughSize(min) + " to "
                + Units.roughSize(max) + ")";
    }
}
