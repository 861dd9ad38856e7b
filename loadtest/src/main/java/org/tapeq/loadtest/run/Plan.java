package org.tapeq.loadtest.run;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;

import org.tapeq.config.ConfigException;
import org.tapeq.daemon.rehearsal.SizeOnlyTapes;
import org.tapeq.workload.scenario.Experiment;
import org.tapeq.workload.scenario.Scenario;

/**
 * What a run issues, fixed by the scenario, its seed and the file lists it recalls before anything starts: the files
 * written first (not measured: the inputs of A-DT and carousel experiments) and, per experiment, the requests of the
 * measured phase in issue order. The same scenario, seed and lists always give the same plan.
 */
public record Plan(List<PlannedFile> prepare, List<List<PlannedFile>> measured) {

    /**
     * The plan of {@code scenario}; an A-DT with {@link Experiment#inputs()} recalls the listed files of its name.
     *
     * @throws ConfigException naming the list if it cannot be read, or holds no file of the experiment, or a file
     *                         this plan also writes
     */
    public static Plan of(Scenario scenario) {
        List<PlannedFile> prepare = new ArrayList<>();
        List<List<PlannedFile>> measured = new ArrayList<>();
        Map<Path, List<FileList.Entry>> lists = new HashMap<>();
        for (int x = 0; x < scenario.experiments().size(); x++) {
            Experiment e = scenario.experiments().get(x);
            SplittableRandom random = new SplittableRandom(scenario.seed() * 1_000_003L + x);
            List<PlannedFile> files = new ArrayList<>();
            switch (e.activity()) {
                case DT -> files.addAll(dataTaking(scenario.seed(), x, e, random));
                case ADT, CAROUSEL -> {
                    if (e.inputs() != null) {
                        files.addAll(listed(x, e, lists.computeIfAbsent(e.inputs(), FileList::read)));
                    } else {
                        List<PlannedFile> inputs = inputs(scenario.seed(), x, e, random);
                        prepare.addAll(inputs);
                        files.addAll(inputs);
                    }
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
        if (!lists.isEmpty()) {
            notWrittenAgain(scenario, measured);
        }
        return new Plan(prepare, measured);
    }

    /** The files of {@code list} that experiment {@code e} (number {@code x}) wrote, by dataset. */
    private static List<PlannedFile> listed(int x, Experiment e, List<FileList.Entry> list) {
        List<PlannedFile> files = new ArrayList<>();
        Set<String> others = new TreeSet<>();
        for (FileList.Entry f : list) {
            if (f.experiment().equals(e.name())) {
                files.add(new PlannedFile(f.pnfsid(), f.size(), f.storageClass(), f.path(), x, f.dataset(), 0));
            } else {
                others.add(f.experiment());
            }
        }
        if (files.isEmpty()) {
            throw new ConfigException(FileList.file(e.inputs()) + ": no file of experiment " + e.name() + " (it lists "
                    + "files of " + String.join(", ", others) + "); an adt recalls the files of the experiment of "
                    + "its own name");
        }
        files.sort(Comparator.comparingInt(PlannedFile::dataset)); // stable: in the order written
        return files;
    }

    /** Refuses a plan that writes a file an A-DT of it recalls from a list (the same seed and position). */
    private static void notWrittenAgain(Scenario scenario, List<List<PlannedFile>> measured) {
        Map<String, Integer> writtenBy = new HashMap<>();
        for (List<PlannedFile> files : measured) {
            for (PlannedFile f : files) {
                if (scenario.experiments().get(f.experiment()).inputs() == null) {
                    writtenBy.put(f.pnfsid(), f.experiment());
                }
            }
        }
        for (List<PlannedFile> files : measured) {
            for (PlannedFile f : files) {
                Experiment e = scenario.experiments().get(f.experiment());
                Integer writer = writtenBy.get(f.pnfsid());
                if (e.inputs() != null && writer != null) {
                    throw new ConfigException(FileList.file(e.inputs()) + ": pnfsid " + f.pnfsid() + " is also "
                            + "written by experiment " + scenario.experiments().get(writer).name() + " of "
                            + scenario.source() + " (the same seed and position); give the scenario another seed");
                }
            }
        }
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
