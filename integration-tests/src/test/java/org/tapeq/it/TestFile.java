package org.tapeq.it;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.zip.Adler32;

import diskCacheV111.util.PnfsId;

/**
 * A generated dCache file: pnfsid, storage class, dCache path (its directory is its dataset) and content
 * derived from a seed, so its bytes can be generated again to compare with what comes back from tape.
 */
record TestFile(String pnfsid, String storageClass, String path, long size, long seed) {

    private static final String[] STORAGE_CLASSES = {"atlas:raw", "cms:reco", "atlas:aod"};

    PnfsId pnfsId() {
        return new PnfsId(pnfsid);
    }

    String dataset() {
        return path.substring(0, path.lastIndexOf('/'));
    }

    byte[] content() {
        byte[] b = new byte[Math.toIntExact(size)];
        new Random(seed).nextBytes(b);
        return b;
    }

    String adler32() {
        return adler32(content());
    }

    static String adler32(byte[] data) {
        Adler32 a = new Adler32();
        a.update(data);
        return String.format(Locale.ROOT, "%08x", a.getValue());
    }

    /** A pnfsid as dCache writes it: 24 upper-case hex digits. */
    static String newPnfsId(Random random) {
        return String.format(Locale.ROOT, "0000%08X%012X", random.nextInt(), random.nextLong() & 0xFFFFFFFFFFFFL);
    }

    /** One file of {@code size} bytes in dataset {@code dataset} (storage classes rotate over the datasets). */
    static TestFile of(Random random, int dataset, long size) {
        String storageClass = STORAGE_CLASSES[dataset % STORAGE_CLASSES.length];
        String experiment = storageClass.substring(0, storageClass.indexOf(':'));
        String id = newPnfsId(random);
        return new TestFile(id, storageClass, "/pnfs/itest/" + experiment + "/ds" + dataset + "/f-" + id, size,
                random.nextLong());
    }

    /**
     * {@code n} files spread over {@code datasets} datasets, sizes log-uniform between {@code minSize} and
     * {@code maxSize} bytes.
     */
    static List<TestFile> generate(Random random, int n, int datasets, long minSize, long maxSize) {
        List<TestFile> files = new ArrayList<>(n);
        double lo = Math.log(Math.max(1, minSize));
        double hi = Math.log(maxSize);
        for (int i = 0; i < n; i++) {
            long size = Math.round(Math.exp(lo + random.nextDouble() * (hi - lo)));
            files.add(of(random, i % datasets, size));
        }
        return files;
    }

    @Override
    public String toString() {
        return pnfsid + " (" + size + " bytes, " + storageClass + ", " + path + ")";
    }
}
