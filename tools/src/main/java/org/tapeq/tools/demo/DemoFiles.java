package org.tapeq.tools.demo;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.zip.Adler32;

import diskCacheV111.util.PnfsId;

/**
 * The demo's files, generated from a seed: sizes log-uniform between 1 KiB and a maximum, contents a
 * pseudo-random stream per file. Nothing is kept in memory but sizes and checksums; a staged file is checked
 * by generating its content again.
 */
final class DemoFiles {

    private static final long MIN_SIZE = 1024;
    private static final int CHUNK = 64 * 1024;

    /** One generated file. */
    record File(int index, PnfsId pnfsid, long size, int dataset, String adler32) {
        String path(String experiment) {
            return String.format(Locale.ROOT, "/pnfs/demo.org/data/%s/dataset%02d/file%06d", experiment, dataset,
                    index);
        }
    }

    private final long seed;
    private final List<File> files = new ArrayList<>();
    private long totalBytes;

    DemoFiles(long seed, int count, int datasets, long maxSize) throws IOException {
        this.seed = seed;
        SplittableRandom r = new SplittableRandom(seed);
        double span = Math.log((double) maxSize / MIN_SIZE);
        for (int i = 0; i < count; i++) {
            long size = Math.round(MIN_SIZE * Math.exp(r.nextDouble() * span));
            PnfsId id = new PnfsId(String.format(Locale.ROOT, "0000%08X%024X", seed & 0xffffffffL, i));
            Adler32 adler = new Adler32();
            try (InputStream in = content(i, size)) {
                byte[] buf = new byte[CHUNK];
                for (int n; (n = in.read(buf)) > 0; ) {
                    adler.update(buf, 0, n);
                }
            }
            files.add(new File(i, id, size, r.nextInt(datasets), String.format(Locale.ROOT, "%08x", adler.getValue())));
            totalBytes += size;
        }
    }

    List<File> files() {
        return files;
    }

    long totalBytes() {
        return totalBytes;
    }

    InputStream content(File f) {
        return content(f.index(), f.size());
    }

    private InputStream content(int index, long size) {
        SplittableRandom r = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + index);
        return new InputStream() {
            private long left = size;
            private long word;
            private int inWord;

            @Override
            public int read() {
                byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (left == 0) {
                    return -1;
                }
                int n = (int) Math.min(len, left);
                for (int i = 0; i < n; i++) {
                    if (inWord == 0) {
                        word = r.nextLong();
                        inWord = 8;
                    }
                    b[off + i] = (byte) word;
                    word >>>= 8;
                    inWord--;
                }
                left -= n;
                return n;
            }
        };
    }

    /** Whether {@code staged} holds exactly the bytes generated for {@code f}. */
    boolean matches(File f, Path staged) throws IOException {
        if (!Files.isRegularFile(staged) || Files.size(staged) != f.size()) {
            return false;
        }
        try (InputStream expected = content(f); InputStream actual = Files.newInputStream(staged)) {
            byte[] a = new byte[CHUNK];
            byte[] b = new byte[CHUNK];
            while (true) {
                int n = expected.readNBytes(a, 0, CHUNK);
                int m = actual.readNBytes(b, 0, CHUNK);
                if (n != m || !Arrays.equals(a, 0, n, b, 0, m)) {
                    return false;
                }
                if (n == 0) {
                    return true;
                }
            }
        }
    }
}
