package org.tapeq.simulator;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.BiFunction;

import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.model.StageRequest;
import org.tapeq.simulator.workload.Carousel;
import org.tapeq.simulator.workload.Datasets;
import org.tapeq.simulator.workload.FileSpec;
import org.tapeq.simulator.workload.RequestSource;
import org.tapeq.simulator.workload.TapeImage;
import org.tapeq.simulator.workload.Trace;
import org.tapeq.simulator.workload.Workload;

/**
 * The scenarios of {@code tapeq simulate} by name. All use LTO-9 cartridges, 10 drives and a library with two robot
 * arms; sizes below are at scale 1 (see docs/simulator.md).
 */
public final class Scenarios {

    static final MediaType MEDIA = MediaType.LTO9;
    static final int DRIVES = 10;
    static final int ROBOT_ARMS = 2;
    private static final long HOUR = 3_600_000L;
    /** A burst reaches the scheduler at 1 000 requests per second (in order, so arrival order means something). */
    private static final long BURST_PER_MILLI = 1;

    private static final Map<String, Scenario> REGISTRY = new LinkedHashMap<>();

    static {
        register("bulk-recall", "A-DT: 100 000 ATLAS files from 200 cartridges, written co-located by dataset,"
                + " requested in one burst in random order, 1 000 per second",
                (seed, scale) -> bulkRecall("bulk-recall", seed, scale, true));
        register("bulk-recall-scattered", "the same burst, the files written scattered among other data",
                (seed, scale) -> bulkRecall("bulk-recall-scattered", seed, scale, false));
        register("carousel", "50 000 co-located files staged through a window of 10 % of the inputs, each"
                + " processed 30 min after staging", Scenarios::carousel);
        register("dt-write", "DT: 4 h of writes at 2 GB/s, half the files small (10 kB-100 MB), half 2-5 GB",
                (seed, scale) -> dtWrite("dt-write", seed, scale, false));
        register("dt-write-100mb", "DT: 100 MB files offered at 4.4 GB/s (above the drives' 4 GB/s) for 30 min",
                (seed, scale) -> dtWrite("dt-write-100mb", seed, scale, true));
        register("mixed", "atlas writes at 1.2 GB/s for 3 h, an atlas recall burst at 0 and a cms one at 1 h;"
                + " shares atlas 2 : cms 1, caps 7 and 5 drives", Scenarios::mixed);
        register("trickle", "5 000 random files of co-located datasets requested one by one over 8 h (Poisson)",
                Scenarios::trickle);
    }

    private Scenarios() {
    }

    private static void register(String name, String description, BiFunction<Long, Double, Workload> build) {
        REGISTRY.put(name, new Scenario() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public String description() {
                return description;
            }

            @Override
            public Workload build(long seed, double scale) {
                if (!(scale > 0) || scale > 10) {
                    throw new IllegalArgumentException("scale must be in (0, 10]: " + scale);
                }
                return build.apply(seed, scale);
            }
        });
    }

    public static Set<String> names() {
        return REGISTRY.keySet();
    }

    /** The scenario of this name; an unknown name is an error naming the choices. */
    public static Scenario get(String name) {
        Scenario s = REGISTRY.get(name);
        if (s == null) {
            throw new IllegalArgumentException("unknown scenario '" + name + "'; known: "
                    + String.join(", ", names()));
        }
        return s;
    }

    static int scaled(int n, double scale, int min) {
        return Math.max(min, (int) Math.round(n * scale));
    }

    static List<String> barcodes(String prefix, int count) {
        List<String> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            out.add(String.format(Locale.ROOT, "%s%04d%s", prefix, i, MEDIA.barcodeSuffix()));
        }
        return out;
    }

    private static Workload bulkRecall(String name, long seed, double scale, boolean colocated) {
        Datasets d = new Datasets(new SplittableRandom(seed), "atlas");
        List<List<FileSpec>> datasets = d.atlasDatasets(scaled(100_000, scale, 100));
        List<String> barcodes = barcodes("BR", scaled(200, scale, 2));
        List<FileSpec> files = flatten(datasets);
        String family = FileSpec.storageClass("atlas");
        List<TapeImage> tapes = colocated ? d.colocated(datasets, barcodes, family, MEDIA.capacityBytes())
                : d.scattered(files, barcodes, family, MEDIA.capacityBytes());
        d.shuffle(files);
        Trace trace = new Trace();
        long at = 0;
        for (StageRequest s : RequestSource.stages(files, 0)) {
            trace.add(at++ / BURST_PER_MILLI, s);
        }
        return new Workload(name, seed, DRIVES, ROBOT_ARMS, MEDIA, tapes, trace, b -> b);
    }

    private static Workload carousel(long seed, double scale) {
        Datasets d = new Datasets(new SplittableRandom(seed), "atlas");
        List<List<FileSpec>> datasets = d.atlasDatasets(scaled(50_000, scale, 100));
        List<String> barcodes = barcodes("CA", scaled(100, scale, 2));
        List<TapeImage> tapes = d.colocated(datasets, barcodes, FileSpec.storageClass("atlas"), MEDIA.capacityBytes());
        List<List<FileSpec>> order = new ArrayList<>(datasets);
        d.shuffle(order);
        List<FileSpec> inputs = new ArrayList<>();
        for (List<FileSpec> ds : order) {
            List<FileSpec> files = new ArrayList<>(ds);
            d.shuffle(files);
            inputs.addAll(files);
        }
        Carousel source = new Carousel(inputs, Math.max(1, inputs.size() / 10), HOUR / 2);
        return new Workload("carousel", seed, DRIVES, ROBOT_ARMS, MEDIA, tapes, source, b -> b);
    }

    private static Workload dtWrite(String name, long seed, double scale, boolean hundredMb) {
        Datasets d = new Datasets(new SplittableRandom(seed), "atlas");
        SplittableRandom r = d.random();
        double rate = hundredMb ? 4.4e6 : 2.0e6; // bytes per millisecond
        long duration = (long) ((hundredMb ? HOUR / 2 : 4 * HOUR) * scale);
        Trace trace = new Trace();
        double t = 0;
        int id = 0;
        int run = 0;
        while (t < duration) {
            if (id % 500 == 0) {
                run++;
            }
            long size;
            if (hundredMb) {
                size = 100 * Datasets.MB;
            } else if (r.nextBoolean()) {
                size = (long) Math.exp(Math.log(10_000) + r.nextDouble() * (Math.log(100 * Datasets.MB)
                        - Math.log(10_000)));
            } else {
                size = (long) (Datasets.GB * (2 + 3 * r.nextDouble()));
            }
            FileSpec f = d.file(String.format(Locale.ROOT, "atlas.run%05d", run), size);
            trace.add((long) t, RequestSource.flush(f, id++));
            t += size / rate;
        }
        List<TapeImage> tapes = new ArrayList<>();
        for (String b : barcodes("DT", scaled(40, scale, 4))) {
            tapes.add(new TapeImage(b, FileSpec.storageClass("atlas")));
        }
        return new Workload(name, seed, DRIVES, ROBOT_ARMS, MEDIA, tapes, trace, b -> b);
    }

    private static Workload mixed(long seed, double scale) {
        Datasets atlas = new Datasets(new SplittableRandom(seed), "atlas");
        Datasets cms = new Datasets(new SplittableRandom(seed ^ 0x5DEECE66DL), "cms");
        List<List<FileSpec>> atlasData = atlas.atlasDatasets(scaled(20_000, scale, 50));
        List<List<FileSpec>> cmsData = cms.atlasDatasets(scaled(20_000, scale, 50));
        List<TapeImage> tapes = new ArrayList<>();
        tapes.addAll(atlas.colocated(atlasData, barcodes("MA", scaled(40, scale, 2)),
                FileSpec.storageClass("atlas"), MEDIA.capacityBytes()));
        tapes.addAll(cms.colocated(cmsData, barcodes("MC", scaled(40, scale, 2)), FileSpec.storageClass("cms"),
                MEDIA.capacityBytes()));
        for (String b : barcodes("MW", scaled(20, scale, 2))) {
            tapes.add(new TapeImage(b, FileSpec.storageClass("atlas")));
        }
        List<Trace.Arrival> arrivals = new ArrayList<>();
        int id = 0;
        List<FileSpec> atlasFiles = flatten(atlasData);
        atlas.shuffle(atlasFiles);
        for (FileSpec f : atlasFiles) {
            arrivals.add(new Trace.Arrival(0, RequestSource.stage(f, id++)));
        }
        List<FileSpec> cmsFiles = flatten(cmsData);
        cms.shuffle(cmsFiles);
        for (FileSpec f : cmsFiles) {
            arrivals.add(new Trace.Arrival(HOUR, RequestSource.stage(f, id++)));
        }
        double rate = 1.2e6;
        long duration = (long) (3 * HOUR * scale);
        double t = 0;
        int n = 0;
        SplittableRandom r = atlas.random();
        while (t < duration) {
            long size = (long) (Datasets.GB * (1 + 4 * r.nextDouble()));
            FileSpec f = atlas.file(String.format(Locale.ROOT, "atlas.run%05d", n++ / 500), size);
            arrivals.add(new Trace.Arrival((long) t, RequestSource.flush(f, id++)));
            t += size / rate;
        }
        arrivals.sort((a, b) -> Long.compare(a.atMillis(), b.atMillis()));
        Trace trace = new Trace();
        for (Trace.Arrival a : arrivals) {
            trace.add(a.atMillis(), a.request());
        }
        return new Workload("mixed", seed, DRIVES, ROBOT_ARMS, MEDIA, tapes, trace,
                b -> b.group("atlas", 2, 7).group("cms", 1, 5));
    }

    private static Workload trickle(long seed, double scale) {
        Datasets d = new Datasets(new SplittableRandom(seed), "atlas");
        List<List<FileSpec>> datasets = d.atlasDatasets(scaled(20_000, scale, 100));
        List<TapeImage> tapes = d.colocated(datasets, barcodes("TR", scaled(50, scale, 2)),
                FileSpec.storageClass("atlas"), MEDIA.capacityBytes());
        List<FileSpec> all = flatten(datasets);
        d.shuffle(all);
        List<FileSpec> wanted = all.subList(0, Math.min(all.size(), scaled(5_000, scale, 20)));
        double mean = 8.0 * HOUR / wanted.size();
        Trace trace = new Trace();
        double t = 0;
        for (int i = 0; i < wanted.size(); i++) {
            t += -mean * Math.log(1 - d.random().nextDouble());
            trace.add((long) t, RequestSource.stage(wanted.get(i), i));
        }
        return new Workload("trickle", seed, DRIVES, ROBOT_ARMS, MEDIA, tapes, trace, b -> b);
    }

    private static List<FileSpec> flatten(List<List<FileSpec>> datasets) {
        List<FileSpec> out = new ArrayList<>();
        for (List<FileSpec> ds : datasets) {
            out.addAll(ds);
        }
        return out;
    }
}
