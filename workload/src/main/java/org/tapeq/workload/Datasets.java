package org.tapeq.workload;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

import org.tapeq.scheduler.engine.SchedulerConfig;

/**
 * Seeded generators of ATLAS-like data (../shared/reference/workloads.md) and of their layout on tape.
 * Dataset kinds, equally likely: AOD (60-130 files of 5.2 GB +-40 %), DAOD (52-128 files of 0.9-2.4 GB), RAW
 * (200-600 files of 2 GB +-20 %).
 */
public final class Datasets {

    public static final long GB = 1_000_000_000L;
    public static final long MB = 1_000_000L;
    /** Tape capacity filled by data nobody requests plus the requested data. */
    public static final double FILL = 0.9;

    private final SplittableRandom random;
    private final String group;
    private int files;
    private int datasets;

    public Datasets(SplittableRandom random, String group) {
        this.random = random;
        this.group = group;
    }

    public SplittableRandom random() {
        return random;
    }

    /** The id of the next file; unique per group (the group's first letters lead). */
    public String nextPnfsid() {
        return String.format(Locale.ROOT, "%04X%020X", Math.abs(group.hashCode()) & 0xFFFF, files++);
    }

    public FileSpec file(String dataset, long size) {
        return new FileSpec(nextPnfsid(), size, dataset, group);
    }

    /** Datasets with at least {@code fileCount} files in total (the last one is cut to fit exactly). */
    public List<List<FileSpec>> atlasDatasets(int fileCount) {
        List<List<FileSpec>> out = new ArrayList<>();
        int made = 0;
        while (made < fileCount) {
            String name = String.format(Locale.ROOT, "%s.ds%05d", group, datasets++);
            int kind = random.nextInt(3);
            int n = switch (kind) {
                case 0 -> 60 + random.nextInt(71);
                case 1 -> 52 + random.nextInt(77);
                default -> 200 + random.nextInt(401);
            };
            n = Math.min(n, fileCount - made);
            List<FileSpec> ds = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                long size = switch (kind) {
                    case 0 -> (long) (5.2 * GB * (0.6 + 0.8 * random.nextDouble()));
                    case 1 -> (long) (GB * (0.9 + 1.5 * random.nextDouble()));
                    default -> (long) (2 * GB * (0.8 + 0.4 * random.nextDouble()));
                };
                ds.add(file(name, size));
            }
            out.add(ds);
            made += n;
        }
        return out;
    }

    /** {@code count} datasets of {@code perDataset} files each, sizes drawn from {@code sizes}. */
    public List<List<FileSpec>> datasets(int count, int perDataset, Sizes sizes) {
        List<List<FileSpec>> out = new ArrayList<>(count);
        for (int d = 0; d < count; d++) {
            String name = String.format(Locale.ROOT, "%s.ds%05d", group, datasets++);
            List<FileSpec> ds = new ArrayList<>(perDataset);
            for (int i = 0; i < perDataset; i++) {
                ds.add(file(name, sizes.draw(random)));
            }
            out.add(ds);
        }
        return out;
    }

    /**
     * Co-located layout: each dataset is written contiguously (in aggregates) on one cartridge; datasets go to
     * the cartridge with the fewest bytes so far, and each cartridge is filled to {@link #FILL} with other data
     * in random pieces between its datasets.
     */
    public List<TapeImage> colocated(List<List<FileSpec>> datasets, List<String> barcodes, String family,
                                     long capacity) {
        List<List<List<FileSpec>>> perTape = new ArrayList<>();
        long[] bytes = new long[barcodes.size()];
        for (int i = 0; i < barcodes.size(); i++) {
            perTape.add(new ArrayList<>());
        }
        List<List<FileSpec>> shuffled = new ArrayList<>(datasets);
        shuffle(shuffled);
        for (List<FileSpec> ds : shuffled) {
            int best = 0;
            for (int i = 1; i < bytes.length; i++) {
                if (bytes[i] < bytes[best]) {
                    best = i;
                }
            }
            perTape.get(best).add(ds);
            bytes[best] += sum(ds);
        }
        List<TapeImage> tapes = new ArrayList<>();
        for (int i = 0; i < barcodes.size(); i++) {
            List<List<FileSpec>> mine = perTape.get(i);
            long[] filler = pieces(Math.max(0, (long) (capacity * FILL) - bytes[i]), mine.size() + 1);
            TapeImage t = new TapeImage(barcodes.get(i), family).filler(filler[0]);
            for (int k = 0; k < mine.size(); k++) {
                t.dataset(mine.get(k), SchedulerConfig.DEFAULT_AGGREGATE_BYTES).filler(filler[k + 1]);
            }
            tapes.add(t.full());
        }
        return tapes;
    }

    /**
     * Scattered layout: each file was written on its own among other data (aggregates of mixed datasets), on a
     * random cartridge at a random place; cartridges are filled to {@link #FILL}.
     */
    public List<TapeImage> scattered(List<FileSpec> files, List<String> barcodes, String family, long capacity) {
        List<List<FileSpec>> perTape = new ArrayList<>();
        for (int i = 0; i < barcodes.size(); i++) {
            perTape.add(new ArrayList<>());
        }
        for (FileSpec f : files) {
            perTape.get(random.nextInt(barcodes.size())).add(f);
        }
        List<TapeImage> tapes = new ArrayList<>();
        for (int i = 0; i < barcodes.size(); i++) {
            List<FileSpec> mine = perTape.get(i);
            shuffle(mine);
            long[] filler = pieces(Math.max(0, (long) (capacity * FILL) - sum(mine)), mine.size() + 1);
            TapeImage t = new TapeImage(barcodes.get(i), family).filler(filler[0]);
            for (int k = 0; k < mine.size(); k++) {
                t.aggregate(List.of(mine.get(k))).filler(filler[k + 1]);
            }
            tapes.add(t.full());
        }
        return tapes;
    }

    /** {@code total} cut into {@code n} random pieces (uniform random weights). */
    long[] pieces(long total, int n) {
        double[] w = new double[n];
        double sum = 0;
        for (int i = 0; i < n; i++) {
            w[i] = random.nextDouble();
            sum += w[i];
        }
        long[] out = new long[n];
        for (int i = 0; i < n; i++) {
            out[i] = (long) (total * w[i] / sum);
        }
        return out;
    }

    public <T> void shuffle(List<T> list) {
        for (int i = list.size() - 1; i > 0; i--) {
            Collections.swap(list, i, random.nextInt(i + 1));
        }
    }

    public static long sum(List<FileSpec> files) {
        long s = 0;
        for (FileSpec f : files) {
            s += f.size();
        }
        return s;
    }
}
