package org.tapeq.simulator;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.UnaryOperator;

import org.tapeq.scheduler.engine.SchedulerConfig;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.workload.Carousel;
import org.tapeq.workload.Datasets;
import org.tapeq.workload.FileSpec;
import org.tapeq.workload.RequestSource;
import org.tapeq.workload.TapeImage;
import org.tapeq.workload.Trace;
import org.tapeq.workload.Workload;
import org.tapeq.workload.scenario.Activity;
import org.tapeq.workload.scenario.Experiment;
import org.tapeq.workload.scenario.Scenario;
import org.tapeq.workload.SimOptions;

/*
 * Design notes: what the simulator makes of a scenario file. Each fair-share group draws from its own seeded
 * generator (the first group's seed is the run's seed, the k-th group's seed ^ k * 0x5DEECE66D), and the draws
 * happen in a fixed order of phases, so that a seed gives the same workload to every policy and every run: the
 * datasets of every recall (adt, carousel) in the file's order, their layout on tape, the blank cartridges of the
 * writes, the order and arrival times of every recall, then the writes. Request ids are given in the same order.
 */

/** Builds the simulator's {@link Workload} from a scenario (docs/simulator.md, "Scenarios"). */
final class ScenarioWorkload {

    /** Multiplier of the seed of the second and later groups. */
    private static final long GROUP_SEED = 0x5DEECE66DL;
    /** The repack's sources draw from a generator of their own, so adding a repack changes no other draw. */
    private static final long REPACK_SEED = 0x2545F4914F6CDD1DL;
    /** Fair-share group, storage class and family of the files the repack moves. */
    static final String REPACK_GROUP = "repack";

    private final Scenario scenario;
    private final double scale;
    private final MediaType media;
    private final Map<String, Datasets> groups = new LinkedHashMap<>();
    private final List<Trace.Arrival> arrivals = new ArrayList<>();
    private final List<TapeImage> tapes = new ArrayList<>();
    private final List<String> repackSources = new ArrayList<>();
    private RequestSource carousel;
    private int nextId;

    private ScenarioWorkload(Scenario scenario, long seed, double scale) {
        this.scenario = scenario;
        this.scale = scale;
        this.media = scenario.library().media();
        for (Experiment e : scenario.experiments()) {
            groups.computeIfAbsent(e.sim().group(), g -> new Datasets(new SplittableRandom(
                    groups.isEmpty() ? seed : seed ^ (GROUP_SEED * groups.size())), g));
        }
    }

    static Workload build(Scenario scenario, long seed, double scale) {
        return new ScenarioWorkload(scenario, seed, scale).build(seed);
    }

    private Workload build(long seed) {
        List<Experiment> recalls = new ArrayList<>();
        List<Experiment> writes = new ArrayList<>();
        for (Experiment e : scenario.experiments()) {
            (e.activity() == Activity.DT ? writes : recalls).add(e);
        }
        if (recalls.stream().anyMatch(e -> e.activity() == Activity.CAROUSEL) && scenario.experiments().size() > 1) {
            throw new IllegalArgumentException(scenario.source() + ": tapeq simulate runs a carousel only alone");
        }
        List<List<List<FileSpec>>> data = new ArrayList<>();
        for (Experiment e : recalls) {
            data.add(datasets(e));
        }
        for (int i = 0; i < recalls.size(); i++) {
            tapes.addAll(layout(recalls.get(i), data.get(i)));
        }
        for (Experiment e : writes) {
            for (String b : barcodes(e)) {
                tapes.add(new TapeImage(b, FileSpec.storageClass(e.sim().group())));
            }
        }
        for (int i = 0; i < recalls.size(); i++) {
            recall(recalls.get(i), data.get(i));
        }
        for (Experiment e : writes) {
            write(e);
        }
        if (scenario.options().repack() != null) {
            repackCartridges(scenario.options().repack(), seed);
        }
        RequestSource source = carousel;
        if (source == null) {
            arrivals.sort(Comparator.comparingLong(Trace.Arrival::atMillis)); // stable: ids in order within a time
            Trace trace = new Trace();
            arrivals.forEach(a -> trace.add(a.atMillis(), a.request()));
            source = trace;
        }
        return new Workload(scenario.name(), seed, scenario.library().drives(), scenario.library().robotArms(), media,
                tapes, source, groupConfig(), scenario.options(), repackSources);
    }

    /**
     * The repack's sources, written co-located like an adt's inputs (full, never requested), and the blank
     * cartridges of their family the files move to.
     */
    private void repackCartridges(SimOptions.Repack r, long seed) {
        Datasets d = new Datasets(new SplittableRandom(seed ^ REPACK_SEED), REPACK_GROUP);
        String family = FileSpec.storageClass(REPACK_GROUP);
        List<List<FileSpec>> data = d.atlasDatasets(scaled(r.files(), scenario.scaleFloor().files()));
        List<String> sources = barcodes(r.barcodes(), scaled(r.cartridges(), 1));
        tapes.addAll(d.colocated(data, sources, family, media.capacityBytes()));
        repackSources.addAll(sources);
        for (String b : barcodes(r.barcodes() + "T", scaled(r.targets(), 1))) {
            tapes.add(new TapeImage(b, family));
        }
    }

    private Datasets of(Experiment e) {
        return groups.get(e.sim().group());
    }

    private int scaled(int n, int min) {
        return Math.max(min, (int) Math.round(n * scale));
    }

    private List<List<FileSpec>> datasets(Experiment e) {
        Scenario.ScaleFloor floor = scenario.scaleFloor();
        if (e.sim().files() > 0) {
            return of(e).atlasDatasets(scaled(e.sim().files(), floor.files()));
        }
        return of(e).datasets(scaled(e.datasets(), 1), e.filesPerDataset(), e.sizes());
    }

    private List<String> barcodes(Experiment e) {
        int cartridges = e.sim().cartridges() > 0 ? e.sim().cartridges() : scenario.library().cartridges();
        int count = scaled(cartridges, scenario.scaleFloor().cartridges());
        String prefix = e.sim().barcodes().isEmpty()
                ? "X" + (char) ('A' + scenario.experiments().indexOf(e) % 26) : e.sim().barcodes();
        return barcodes(prefix, count);
    }

    private List<String> barcodes(String prefix, int count) {
        List<String> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            out.add(String.format(Locale.ROOT, "%s%04d%s", prefix, i, media.barcodeSuffix()));
        }
        return out;
    }

    private List<TapeImage> layout(Experiment e, List<List<FileSpec>> datasets) {
        String family = FileSpec.storageClass(e.sim().group());
        return switch (e.sim().layout()) {
            case COLOCATED -> of(e).colocated(datasets, barcodes(e), family, media.capacityBytes());
            case SCATTERED -> of(e).scattered(flatten(datasets), barcodes(e), family, media.capacityBytes());
        };
    }

    /** The recall's files in its order and their arrivals (a carousel: its source). */
    private void recall(Experiment e, List<List<FileSpec>> datasets) {
        Datasets d = of(e);
        List<FileSpec> files = new ArrayList<>();
        if (e.order() == Experiment.RecallOrder.MIXED) {
            files.addAll(flatten(datasets));
            d.shuffle(files);
        } else { // datasets one after the other in random order, each one's files shuffled
            List<List<FileSpec>> order = new ArrayList<>(datasets);
            d.shuffle(order);
            for (List<FileSpec> ds : order) {
                List<FileSpec> mine = new ArrayList<>(ds);
                d.shuffle(mine);
                files.addAll(mine);
            }
        }
        if (e.activity() == Activity.CAROUSEL) {
            carousel = new Carousel(files, e.windowPercent(), e.processMillis());
            return;
        }
        if (e.sim().requests() > 0) {
            files = files.subList(0, Math.min(files.size(), scaled(e.sim().requests(),
                    scenario.scaleFloor().requests())));
        }
        long start = e.sim().startMillis();
        double mean = e.sim().spreadMillis() / (double) files.size();
        double t = 0;
        for (int i = 0; i < files.size(); i++) {
            long at;
            if (e.sim().spreadMillis() > 0) { // Poisson arrivals
                t += -mean * Math.log(1 - d.random().nextDouble());
                at = (long) (start + t);
            } else if (e.sim().requestRate() > 0) {
                at = start + (long) (i * 1000.0 / e.sim().requestRate());
            } else {
                at = start;
            }
            arrivals.add(new Trace.Arrival(at, RequestSource.stage(files.get(i), nextId++)));
        }
    }

    /** Files offered at the rate for the (scaled) duration, each when the bytes before it have been offered. */
    private void write(Experiment e) {
        Datasets d = of(e);
        double bytesPerMilli = e.rate() / 1000;
        long duration = (long) (e.durationMillis() * scale);
        double t = 0;
        int n = 0;
        while (t < duration) {
            long size = e.sizes().draw(d.random());
            FileSpec f = d.file(String.format(Locale.ROOT, "%s.run%05d", e.sim().group(),
                    n++ / e.sim().filesPerDataset()), size);
            arrivals.add(new Trace.Arrival((long) t, RequestSource.flush(f, nextId++)));
            t += size / bytesPerMilli;
        }
    }

    /** Several groups (or a cap): each group's share and cap, from its first experiment. */
    private UnaryOperator<SchedulerConfig.Builder> groupConfig() {
        Map<String, Experiment> first = new LinkedHashMap<>();
        scenario.experiments().forEach(e -> first.putIfAbsent(e.sim().group(), e));
        if (first.size() < 2 && first.values().stream().allMatch(e -> e.sim().maxDrives() == 0)) {
            return b -> b;
        }
        return b -> {
            first.forEach((group, e) -> b.group(group, e.share(), e.sim().maxDrives()));
            return b;
        };
    }

    private static List<FileSpec> flatten(List<List<FileSpec>> datasets) {
        List<FileSpec> out = new ArrayList<>();
        for (List<FileSpec> ds : datasets) {
            out.addAll(ds);
        }
        return out;
    }
}
