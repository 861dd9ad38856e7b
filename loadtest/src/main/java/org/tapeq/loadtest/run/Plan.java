package org.tapeq.loadtest.run;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.SplittableRandom;

import org.tapeq.loadtest.scenario.Experiment;
import org.tapeq.loadtest.scenario.Scenario;

/**
 * What a run issues, fixed by the scenario and its seed before anything starts: the files written first (not
 * measured: the inputs of A-DT and carousel experiments) and, per experiment, the requests of the measured phase in
 * issue order. The same scenario and seed always give the same plan.
 */
public record Plan(List<PlannedFile> prepare, List<List<PlannedFile>> measured) {

    public static Plan of(Scenario scenario) {
        List<PlannedFile> prepare = new ArrayList<>();
        List<List<PlannedFile>> measured = new ArrayList<>();
        for (int x = 0; x < scenario.experiments().size(); x++) {
            Experiment e = scenario.experiments().get(x);
            SplittableRandom random = new SplittableRandom(scenario.seed() * 1_000_003L + x);
            List<PlannedFile> files = new ArrayList<>();
            switch (e.activity()) {
                case DT -> files.addAll(dataTaking(scenario.seed(), x, e, random));
                case ADT, CAROUSEL -> {
                    List<PlannedFile> inputs = inputs(scenario.seed(), x, e, random);
                    prepare.addAll(inputs);
                    files.addAll(inputs);
                    if (e.order() == Experiment.RecallOrder.MIXED) {
                        Collections.shuffle(files, new Random(random.nextLong()));
                    }
                }
                case BURST -> {
                    for (int i = 0; i < e.requests(); i++) {
                        files.add(new PlannedFile(SizeOnlyTapes.pnfsid(i), e.burstFileSize(),
                                SizeOnlyTapes.storageClass(i, scenario.library().cartridges()), null, x, 0, 0));
                    }
                }
                default -> throw new IllegalStateException(e.activity().toString());
            }
            measured.add(files);
        }
        return new Plan(prepare, measured);
    }

    /** Files written at the experiment's rate: each starts when the bytes before it have been issued. */
    private static List<PlannedFile> dataTaking(long seed, int x, Experiment e, SplittableRandom random) {
        List<PlannedFile> files = new ArrayList<>();
        double at = 0;
        double bytesPerMilli = e.rate() / 1000;
        // datasets one after the other, each about an equal slice of the duration (a run of the detector)
        long slice = Math.max(1, e.durationMillis() / e.datasets());
        while (at < e.durationMillis()) {
            long size = e.sizes().draw(random);
            int dataset = (int) Math.min(e.datasets() - 1, (long) at / slice);
            files.add(file(seed, x, e, files.size(), size, dataset, (long) at));
            at += size / bytesPerMilli;
        }
        return files;
    }

    private static List<PlannedFile> inputs(long seed, int x, Experiment e, SplittableRandom random) {
        List<PlannedFile> files = new ArrayList<>();
        for (int d = 0; d < e.datasets(); d++) {
            for (int f = 0; f < e.filesPerDataset(); f++) {
                files.add(file(seed, x, e, files.size(), e.sizes().draw(random), d, 0));
            }
        }
        return files;
    }

    private static PlannedFile file(long seed, int x, Experiment e, int index, long size, int dataset, long at) {
        String pnfsid = String.format(Locale.ROOT, "0000%02X%06X%012X", x, seed & 0xffffff, index);
        String path = String.format(Locale.ROOT, "/pnfs/loadtest/%s/%s/dataset%03d/file%07d", e.name(),
                e.activity().name().toLowerCase(Locale.ROOT), dataset, index);
        return new PlannedFile(pnfsid, size, e.storageClass(), path, x, dataset, at);
    }

    public int measuredCount() {
        return measured.stream().mapToInt(List::size).sum();
    }
}
