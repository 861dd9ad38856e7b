package org.tapeq.charts;

import java.util.Arrays;
import java.util.Objects;

/** One named line of a chart: x and y values of equal length. */
public record Series(String name, double[] x, double[] y) {

    public Series {
        Objects.requireNonNull(name, "name");
        if (x.length != y.length) {
            throw new IllegalArgumentException("series '" + name + "': " + x.length + " x values but " + y.length + " y values");
        }
    }

    /**
     * The empirical cumulative distribution of {@code values}: x the sorted values, y the fraction of values at
     * or below each (0..1]. An empty input gives an empty series.
     */
    public static Series cdf(String name, double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        double[] fraction = new double[sorted.length];
        for (int i = 0; i < sorted.length; i++) {
            fraction[i] = (i + 1) / (double) sorted.length;
        }
        return new Series(name, sorted, fraction);
    }

    public int size() {
        return x.length;
    }
}
