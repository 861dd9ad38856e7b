package org.tapeq.workload;

import java.util.SplittableRandom;

import org.tapeq.config.Units;

/**
 * How the sizes of a workload's files are drawn: a log-normal {@link SizeMix}, one fixed size, uniform or
 * log-uniform between two bounds, or either of two such mixes with equal chance. Every draw takes its random
 * numbers from the generator it is given, so a seed gives the same sizes.
 */
public interface Sizes {

    /** The next size in bytes. */
    long draw(SplittableRandom random);

    /** For people: {@code median 2 GB (sigma 1.0, 10 kB to 10 GB)}, {@code 100 MB each}, ... */
    String describe();

    /** Every file {@code size} bytes; draws no random number. */
    record Fixed(long size) implements Sizes {
        public Fixed {
            if (size < 1) {
                throw new IllegalArgumentException("a size must be at least 1 byte, not " + size);
            }
        }

        @Override
        public long draw(SplittableRandom random) {
            return size;
        }

        @Override
        public String describe() {
            return Units.roughSize(size) + " each";
        }
    }

    /**
     * Uniform in [min, max). Computed in the largest decimal unit (GB, MB, kB, B) dividing both bounds, so that
     * {@code 2GB..5GB} draws {@code GB * (2 + 3u)}.
     */
    record Uniform(long min, long max) implements Sizes {
        public Uniform {
            bounds(min, max);
        }

        @Override
        public long draw(SplittableRandom random) {
            long unit = 1;
            for (long u : new long[] {1_000_000_000L, 1_000_000L, 1_000L}) {
                if (min % u == 0 && max % u == 0) {
                    unit = u;
                    break;
                }
            }
            return (long) (unit * ((double) (min / unit) + (double) ((max - min) / unit) * random.nextDouble()));
        }

        @Override
        public String describe() {
            return "uniform " + Units.roughSize(min) + " to " + Units.roughSize(max);
        }
    }

    /** Log-uniform in [min, max): as many files between 10 kB and 100 kB as between 10 MB and 100 MB. */
    record LogUniform(long min, long max) implements Sizes {
        public LogUniform {
            bounds(min, max);
        }

        @Override
        public long draw(SplittableRandom random) {
            return (long) Math.exp(Math.log(min) + random.nextDouble() * (Math.log(max) - Math.log(min)));
        }

        @Override
        public String describe() {
            return "log-uniform " + Units.roughSize(min) + " to " + Units.roughSize(max);
        }
    }

    /** {@code first} or {@code second}, each with chance one half. */
    record Either(Sizes first, Sizes second) implements Sizes {
        @Override
        public long draw(SplittableRandom random) {
            return random.nextBoolean() ? first.draw(random) : second.draw(random);
        }

        @Override
        public String describe() {
            return "half " + first.describe() + ", half " + second.describe();
        }
    }

    private static void bounds(long min, long max) {
        if (min < 1 || max < min) {
            throw new IllegalArgumentException("need 1 <= min <= max, not min " + min + ", max " + max);
        }
    }
}
