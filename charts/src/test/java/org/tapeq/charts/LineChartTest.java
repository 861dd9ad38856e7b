package org.tapeq.charts;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import javax.imageio.ImageIO;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LineChartTest {

    @Test
    void writesAPngOfTheRequestedSize(@TempDir Path dir) throws Exception {
        Path png = new LineChart("queue depth", "time (s)", "requests")
                .add(new Series("tapeq", new double[] {0, 1, 2}, new double[] {5, 3, 0}))
                .add(new Series("fifo", new double[] {0, 1, 2}, new double[] {5, 4, 2}))
                .stepped()
                .writePng(dir.resolve("sub/depth.png"), 400, 300);

        assertEquals(dir.resolve("sub/depth.png"), png);
        BufferedImage image = ImageIO.read(png.toFile());
        assertEquals(400, image.getWidth());
        assertEquals(300, image.getHeight());
    }

    @Test
    void anEmptyChartIsStillAnImage(@TempDir Path dir) throws Exception {
        Path png = new LineChart("nothing", "x", "y").add(new Series("none", new double[0], new double[0]))
                .writePng(dir.resolve("empty.png"));
        assertEquals(LineChart.DEFAULT_WIDTH, ImageIO.read(png.toFile()).getWidth());
    }

    @Test
    void cdfSortsAndCountsFractions() {
        Series cdf = Series.cdf("latency", new double[] {3, 1, 2, 2});
        assertArrayEquals(new double[] {1, 2, 2, 3}, cdf.x());
        assertArrayEquals(new double[] {0.25, 0.5, 0.75, 1.0}, cdf.y());
    }

    @Test
    void mismatchedLengthsNameTheSeries() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new Series("bad", new double[2], new double[3]));
        assertEquals("series 'bad': 2 x values but 3 y values", e.getMessage());
    }

    @Test
    void anXAxisCutAndAnOutsideLegendChangeTheDrawing(@TempDir Path dir) throws Exception {
        Series a = new Series("a", new double[] {0, 1, 10}, new double[] {0, 5, 5});
        Series b = new Series("b", new double[] {0, 1}, new double[] {1, 2});
        Path plain = new LineChart("t", "x", "y").add(a).add(b).writePng(dir.resolve("plain.png"), 400, 300);
        Path cut = new LineChart("t", "x", "y").add(a).add(b).legendOutside().xMax(2)
                .writePng(dir.resolve("cut.png"), 400, 300);
        assertEquals(400, ImageIO.read(cut.toFile()).getWidth());
        assertFalse(Arrays.equals(Files.readAllBytes(plain), Files.readAllBytes(cut)));
    }
}
