package org.tapeq.loadtest.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.zip.Adler32;

import org.junit.jupiter.api.Test;
import org.tapeq.loadtest.scenario.Scenario;
import org.tapeq.loadtest.scenario.ScenarioFile;

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
