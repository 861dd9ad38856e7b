package org.tapeq.charts;

import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import javax.imageio.ImageIO;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * A line chart written as a PNG: a title, axis labels and one or more {@link Series}. Rendering is headless
 * (no display needed). Used by {@code tapeq simulate} and {@code tapeq loadtest} so their plots look alike.
 */
public final class LineChart {

    public static final int DEFAULT_WIDTH = 900;
    public static final int DEFAULT_HEIGHT = 500;

    private final String title;
    private final String xLabel;
    private final String yLabel;
    private final List<Series> series = new ArrayList<>();
    private boolean stepped;
    private String yPattern;
    private boolean legendOutside;
    private double xMax = Double.NaN;

    public LineChart(String title, String xLabel, String yLabel) {
        this.title = Objects.requireNonNull(title, "title");
        this.xLabel = Objects.requireNonNull(xLabel, "xLabel");
        this.yLabel = Objects.requireNonNull(yLabel, "yLabel");
    }

    public LineChart add(Series s) {
        series.add(Objects.requireNonNull(s, "series"));
        return this;
    }

    /** Draws every series as a step function (for counts that change at events, such as queue depth). */
    public LineChart stepped() {
        stepped = true;
        return this;
    }

    /** Labels the y axis with this DecimalFormat pattern (e.g. {@code "0"}) instead of XChart's own. */
    public LineChart yPattern(String pattern) {
        yPattern = Objects.requireNonNull(pattern, "pattern");
        return this;
    }

    /** Puts the legend to the right of the plot, so it never hides data. */
    public LineChart legendOutside() {
        legendOutside = true;
        return this;
    }

    /** Cuts the x axis at {@code max}; lines running further leave the plot at its right edge. */
    public LineChart xMax(double max) {
        xMax = max;
        return this;
    }

    /** Writes the chart to {@code png} (parent folders are created); an empty series is drawn as a point at 0. */
    public Path writePng(Path png) throws IOException {
        return writePng(png, DEFAULT_WIDTH, DEFAULT_HEIGHT);
    }

    public Path writePng(Path png, int width, int height) throws IOException {
        System.setProperty("java.awt.headless", "true");
        // ImageIO's default file cache registers a JVM shutdown hook on first use, which fails while the JVM shuts
        // down: the load-test harness writes its partial report then (Ctrl-C). The memory cache needs no hook.
        ImageIO.setUseCache(false);
        XYChart chart = new XYChartBuilder().width(width).height(height)
                .title(title).xAxisTitle(xLabel).yAxisTitle(yLabel).build();
        chart.getStyler().setLegendPosition(
                legendOutside ? Styler.LegendPosition.OutsideE : Styler.LegendPosition.InsideNW);
        chart.getStyler().setXAxisDecimalPattern("#,##0.##");
        if (!Double.isNaN(xMax)) {
            chart.getStyler().setXAxisMax(xMax);
        }
        chart.getStyler().setChartBackgroundColor(Color.WHITE);
        chart.getStyler().setLegendVisible(series.size() > 1);
        if (yPattern != null) {
            chart.getStyler().setYAxisDecimalPattern(yPattern);
        }
        chart.getStyler().setDefaultSeriesRenderStyle(
                stepped ? XYSeries.XYSeriesRenderStyle.Step : XYSeries.XYSeriesRenderStyle.Line);
        if (series.isEmpty()) {
            chart.addSeries("no data", new double[] {0}, new double[] {0}).setMarker(SeriesMarkers.NONE);
        }
        for (Series s : series) {
            double[] x = s.size() == 0 ? new double[] {0} : s.x();
            double[] y = s.size() == 0 ? new double[] {0} : s.y();
            chart.addSeries(s.name(), x, y).setMarker(SeriesMarkers.NONE);
        }
        Path parent = png.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        String name = png.toString();
        String base = name.endsWith(".png") ? name.substring(0, name.length() - 4) : name;
        BitmapEncoder.saveBitmap(chart, base, BitmapEncoder.BitmapFormat.PNG);
        return Path.of(base + ".png");
    }
}
