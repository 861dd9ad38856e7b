package org.tapeq.loadtest.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.zip.Adler32;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.config.ConfigException;
import org.tapeq.workload.scenario.Scenario;
import org.tapeq.workload.scenario.ScenarioFile;

class PlanTest {

    private static Scenario scenario(long seed, String order) {
        return ScenarioFile.parse(String.join("\n",
                "type: mixed",
                "seed: " + seed,
                "experiments:",
                "  - {name: atlas, activity: dt, rate: 100MB/s, duration: 10m, datasets: 2,"
                        + " size: {median: 50MB, sigma: 1, min: 1MB, max: 500MB}}",
                "  - {name: cms, activity: adt, datasets: 4, filesPerDataset: 25, order: " + order + "}",
                ""), "plan.yaml");
    }

    @Test
    void of_sameSeed_samePlan_otherSeed_otherPlan() {
        assertEquals(Plan.of(scenario(1, "mixed")), Plan.of(scenario(1, "mixed")));
        assertNotEquals(Plan.of(scenario(1, "mixed")), Plan.of(scenario(2, "mixed")));
    }

    @Test
    void of_dataTaking_issuesTheRateOverTheDuration() {
        List<PlannedFile> dt = Plan.of(scenario(3, "datasets")).measured().get(0);
        long bytes = dt.stream().mapToLong(PlannedFile::size).sum();
        PlannedFile last = dt.get(dt.size() - 1);
        assertTrue(last.atMillis() < 600_000, "the last file starts within the duration");
        // every file starts when the bytes before it have been issued at 100 MB/s: 60 GB give or take the last file
        assertEquals(60e9, bytes, last.size() + 1);
        assertEquals(0, dt.get(0).atMillis());
        for (int i = 1; i < dt.size(); i++) {
            assertTrue(dt.get(i).atMillis() >= dt.get(i - 1).atMillis());
        }
        assertEquals(Set.of(0, 1), new HashSet<>(dt.stream().map(PlannedFile::dataset).toList()));
        assertTrue(dt.stream().allMatch(f -> f.size() >= 1_000_000 && f.size() <= 500_000_000));
    }

    @Test
    void of_recall_writesTheInputsFirst_andRecallsEachOnce() {
        Plan byDataset = Plan.of(scenario(4, "datasets"));
        Plan mixed = Plan.of(scenario(4, "mixed"));
        assertEquals(100, byDataset.prepare().size());
        assertEquals(byDataset.prepare(), byDataset.measured().get(1), "whole datasets in the order written");
        List<PlannedFile> shuffled = mixed.measured().get(1);
        assertNotEquals(mixed.prepare(), shuffled);
        assertEquals(new HashSet<>(mixed.prepare()), new HashSet<>(shuffled));
        Set<String> ids = new HashSet<>();
        byDataset.prepare().forEach(f -> ids.add(f.pnfsid()));
        byDataset.measured().get(0).forEach(f -> ids.add(f.pnfsid()));
        assertEquals(100 + byDataset.measured().get(0).size(), ids.size(), "pnfsids are unique in a run");
    }

    /** A list as a dt of atlas (datasets 0 and 1) and cms wrote it; the order of atlas's files mixes datasets. */
    private static Path list(Path dir) throws IOException {
        List<FileList.Entry> entries = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            String experiment = i % 4 == 3 ? "cms" : "atlas";
            entries.add(FileList.Entry.of(new PlannedFile(String.format("00000000000B%012X", i), 1000 + i,
                    experiment + ":raw", "/pnfs/loadtest/" + experiment + "/dt/f" + i, 0, i % 3 == 0 ? 1 : 0, 0),
                    experiment));
        }
        FileList.write(dir.resolve(FileList.NAME), entries);
        return dir;
    }

    private static Scenario recall(Path inputs, String order, String more) {
        return ScenarioFile.parse(String.join("\n",
                "type: mixed",
                "seed: 5",
                "experiments:",
                "  - {name: atlas, activity: adt, order: " + order + "}",
                "  - {name: lhcb, activity: " + more + "}",
                ""), "recall.yaml", inputs);
    }

    @Test
    void of_recallOfAList_takesTheFilesOfItsName_wholeDatasetsOrShuffled(@TempDir Path dir) throws IOException {
        Path inputs = list(dir);
        Plan byDataset = Plan.of(recall(inputs, "datasets", "carousel, datasets: 1, filesPerDataset: 3, window: 50%"));
        assertEquals(3, byDataset.prepare().size(), "only the carousel writes its inputs first");
        List<PlannedFile> atlas = byDataset.measured().get(0);
        assertEquals(15, atlas.size(), "atlas's 15 files, not cms's 5");
        assertTrue(atlas.stream().allMatch(f -> f.storageClass().equals("atlas:raw") && f.experiment() == 0));
        List<Integer> datasets = atlas.stream().map(PlannedFile::dataset).toList();
        assertEquals(datasets.stream().sorted().toList(), datasets, "whole datasets, one after the other");
        List<PlannedFile> dataset0 = atlas.stream().filter(f -> f.dataset() == 0).toList();
        assertEquals(dataset0.stream().sorted(Comparator.comparing(PlannedFile::pnfsid)).toList(), dataset0,
                "in each dataset the order written");
        assertEquals(1001, atlas.stream().filter(f -> f.pnfsid().endsWith("001")).findFirst().orElseThrow().size());

        Plan mixed = Plan.of(recall(inputs, "mixed", "carousel, datasets: 1, filesPerDataset: 3, window: 50%"));
        assertNotEquals(atlas, mixed.measured().get(0));
        assertEquals(new HashSet<>(atlas), new HashSet<>(mixed.measured().get(0)));
        assertEquals(mixed, Plan.of(recall(inputs, "mixed", "carousel, datasets: 1, filesPerDataset: 3, window: 50%")),
                "the same seed shuffles the same way");
    }

    @Test
    void of_listWithoutTheExperiment_namesTheListAndWhatItHolds(@TempDir Path dir) throws IOException {
        Path inputs = list(dir);
        Scenario s = ScenarioFile.parse("type: adt\nexperiments: [{name: alice}]\n", "alice.yaml", inputs);
        ConfigException e = assertThrows(ConfigException.class, () -> Plan.of(s));
        assertEquals(inputs.resolve(FileList.NAME) + ": no file of experiment alice (it lists files of atlas, cms); an "
                + "adt recalls the files of the experiment of its own name", e.getMessage());
    }

    @Test
    void of_scenarioWritingAFileItRecalls_isRefused(@TempDir Path dir) throws IOException {
        // the list's pnfsids are those this scenario's dt (experiment 0, seed 1) writes itself
        Scenario dt = ScenarioFile.parse("type: dt\nexperiments: [{name: atlas, rate: 1MB/s, duration: 1m}]\n",
                "dt.yaml");
        List<FileList.Entry> written = Plan.of(dt).measured().get(0).stream()
                .map(f -> FileList.Entry.of(f, "cms")).toList();
        FileList.write(dir.resolve(FileList.NAME), written);
        Scenario both = ScenarioFile.parse(String.join("\n", "type: mixed", "experiments:",
                "  - {name: atlas, activity: dt, rate: 1MB/s, duration: 1m}",
                "  - {name: cms, activity: adt}", ""), "both.yaml", dir);
        ConfigException e = assertThrows(ConfigException.class, () -> Plan.of(both));
        assertTrue(e.getMessage().startsWith(dir.resolve(FileList.NAME) + ": pnfsid " + written.get(0).pnfsid()
                + " is also written by experiment atlas of both.yaml"), e.getMessage());
    }

    @Test
    void adler32_ofZeros_matchesJavaUtilZip() {
        for (long size : new long[] {0, 1, 65520, 65521, 65522, 1_000_000}) {
            Adler32 a = new Adler32();
            a.update(new byte[(int) size]);
            assertEquals(a.getValue(), new PlannedFile("00000000000000000000000A", size, "a:raw", null, 0, 0, 0)
                    .adler32(), "size " + size);
        }
    }
}
