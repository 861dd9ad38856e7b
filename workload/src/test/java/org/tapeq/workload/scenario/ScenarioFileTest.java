package org.tapeq.workload.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.tapeq.config.ConfigException;
import org.tapeq.scheduler.tape.sim.DataMode;
import org.tapeq.workload.SizeMix;
import org.tapeq.workload.Sizes;

class ScenarioFileTest {

    private static final String DT = String.join("\n",
            "type: dt",
            "seed: 7",
            "library: {drives: 2, cartridges: 10, speed: 50}",
            "experiments:",
            "  - name: atlas",
            "    rate: 1GB/s",
            "    duration: 1h",
            "    datasets: 3",
            "    size: {median: 2GB, sigma: 0.5, min: 1MB, max: 10GB}",
            "targets: {sustainedRate: 900MB/s, window: 10m}",
            "");

    @Test
    void load_everyShippedScenario_parses() throws IOException {
        List<Path> files;
        try (Stream<Path> s = Files.list(Path.of("../loadtest/scenarios"))) {
            files = s.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
        }
        assertTrue(files.size() >= 5, "the five example scenarios ship: " + files);
        for (Path f : files) {
            Scenario s = ScenarioFile.load(f);
            assertFalse(s.experiments().isEmpty(), f.toString());
        }
    }

    @Test
    void parse_dt_readsEveryKey() {
        Scenario s = ScenarioFile.parse(DT, "dt.yaml");
        assertEquals("dt", s.type());
        assertEquals("dt", s.name());
        assertEquals(7, s.seed());
        assertEquals(2, s.library().drives());
        assertEquals(50, s.library().speed());
        assertEquals(DataMode.SIZE_ONLY, s.library().data());
        Experiment e = s.experiments().get(0);
        assertEquals(Activity.DT, e.activity());
        assertEquals(1e9, e.rate());
        assertEquals(3_600_000, e.durationMillis());
        assertEquals(new SizeMix(2_000_000_000L, 0.5, 1_000_000, 10_000_000_000L), e.sizes());
        assertEquals("atlas:raw", e.storageClass());
        assertEquals(9e8, s.targets().sustainedRate());
        assertEquals(600_000, s.targets().windowMillis());
        assertEquals(0, s.targets().maxLost());
    }

    @Test
    void parse_adtWithInputs_pathRelativeToTheScenarioFolder_noDatasetsNeeded() {
        Scenario s = ScenarioFile.parse(String.join("\n",
                "type: adt",
                "experiments:",
                "  - {name: atlas, inputs: ../runs/dt, order: mixed, maxOutstanding: 10}",
                ""), "docs/scenarios/adt.yaml");
        Experiment e = s.experiments().get(0);
        assertEquals(Path.of("docs/runs/dt"), e.inputs());
        assertEquals(Experiment.RecallOrder.MIXED, e.order());
        assertEquals(10, e.maxOutstanding());
        assertTrue(s.hasInputs());
        assertEquals(Path.of("dt"), ScenarioFile.parse("type: adt\nexperiments: [{name: a, inputs: dt}]\n",
                "adt.yaml").experiments().get(0).inputs(), "a scenario named without a folder: the current one");
    }

    @Test
    void parse_inputsGivenOnTheCommandLine_replaceTheScenarios_forEveryAdt() {
        Scenario s = ScenarioFile.parse(String.join("\n",
                "type: mixed",
                "experiments:",
                "  - {name: atlas, activity: adt, inputs: elsewhere}",
                "  - {name: cms, activity: adt}",
                "  - {name: lhcb, activity: carousel, datasets: 1, filesPerDataset: 2, window: 50%}",
                ""), "mixed.yaml", Path.of("report/dt"));
        assertEquals(Path.of("report/dt"), s.experiments().get(0).inputs());
        assertEquals(Path.of("report/dt"), s.experiments().get(1).inputs());
        assertEquals(null, s.experiments().get(2).inputs(), "a carousel writes its own inputs");
        assertFalse(ScenarioFile.parse(DT, "dt.yaml").hasInputs());
        ConfigException e = assertThrows(ConfigException.class, () -> ScenarioFile.parse(DT, "dt.yaml",
                Path.of("report/dt")));
        assertEquals("dt.yaml: --inputs report/dt given, but no experiment is an adt (only an adt recalls what an "
                + "earlier run wrote)", e.getMessage());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "type: dt ; experiments: [{name: a, rate: 1GB/s}]|experiments[0].duration: required",
        "type: dt ; experiments: [{name: a, rate: 1GB/s, duration: 1h, windw: 3}]|experiments[0].windw: unknown key",
        "type: dt ; experiments: [{name: a, rate: 1GB/s, duration: 1h, window: 3}]|experiments[0].window: does not apply to dt",
        "type: adt ; experiments: [{name: a, datasets: 2}]|experiments[0].filesPerDataset: required",
        "type: adt ; experiments: [{name: a}]|experiments[0].datasets: required (or inputs: the report folder of an earlier dt",
        "type: adt ; experiments: [{name: a, inputs: r, datasets: 2}]|experiments[0].datasets: does not apply to adt with inputs (the list gives the files",
        "type: adt ; experiments: [{name: a, inputs: r, size: {median: 1MB}}]|experiments[0].size: does not apply to adt with inputs",
        "type: adt ; experiments: [{name: a, inputs: \"\"}]|experiments[0].inputs: must not be empty",
        "type: dt ; experiments: [{name: a, rate: 1GB/s, duration: 1h, inputs: r}]|experiments[0].inputs: does not apply to dt",
        "type: carousel ; experiments: [{name: a, datasets: 1, filesPerDataset: 1, window: 5%, inputs: r}]|experiments[0].inputs: does not apply to carousel",
        "type: carousel ; experiments: [{name: a, datasets: 2, filesPerDataset: 3, window: 150%}]|experiments[0].window: must be above 0 %",
        "type: mixed ; experiments: [{name: a, rate: 1GB/s, duration: 1h}, {name: b, datasets: 1, filesPerDataset: 1}]|experiments[0].activity: required",
        "type: mixed ; experiments: [{name: a, activity: dt, rate: 1GB/s, duration: 1h}]|experiments: a mixed scenario needs at least two",
        "type: dt ; experiments: [{name: a, activity: adt, rate: 1GB/s, duration: 1h}]|experiments[0].activity: must be dt",
        "type: burst ; experiments: [{name: a}]|experiments[0].requests: required",
        "type: tape ; experiments: []|type: \"tape\" is not one of dt, adt, carousel, burst, mixed",
        "type: dt ; experiments: [{name: A, rate: 1GB/s, duration: 1h}]|experiments[0].name: \"A\" must be",
        "type: dt ; experiments: [{name: a, rate: fast, duration: 1h}]|experiments[0].rate: \"fast\" is not a size",
        "type: dt ; library: {media: LTO2} ; experiments: [{name: a, rate: 1GB/s, duration: 1h}]|library.media: \"LTO2\" is not a known",
        "type: dt ; experiments: [{name: a, rate: 1GB/s, duration: 1h, size: {median: 1kB, min: 1MB}}]|experiments[0].size: need 1 <= min <= median",
        "type: dt ; experiments: [{name: a, rate: 1GB/s, duration: 1h}] ; targets: {maxLost: -1}|targets.maxLost: must be",
    })
    void parse_badInput_namesFileAndKey(String yaml, String expected) {
        ConfigException e = assertThrows(ConfigException.class,
                () -> ScenarioFile.parse(yaml.replace(" ; ", "\n"), "bad.yaml"));
        assertTrue(e.getMessage().startsWith("bad.yaml: " + expected), e.getMessage());
    }

    @Test
    void parse_simulatorKeys_readForTheSimulator_sizesOfEveryShape() {
        Scenario s = ScenarioFile.parse(String.join("\n",
                "type: mixed",
                "description: two groups",
                "library: {drives: 10, robotArms: 3}",
                "experiments:",
                "  - {name: atlas-recall, activity: adt, group: atlas, share: 2, maxDrives: 7, files: 2000,"
                        + " cartridges: 4, barcodes: MA, layout: scattered, order: mixed, requestRate: 1000/s,"
                        + " requests: 50, start: 1h}",
                "  - name: atlas-writes",
                "    activity: dt",
                "    group: atlas",
                "    rate: 1GB/s",
                "    duration: 1h",
                "    filesPerDataset: 100",
                "    size: {either: [{distribution: logUniform, min: 10kB, max: 100MB},"
                        + " {distribution: uniform, min: 2GB, max: 5GB}]}",
                "  - {name: cms, activity: dt, rate: 1GB/s, duration: 1h, size: 100MB}",
                "scaleFloor: {cartridges: 4}",
                ""), "mixed.yaml", null, ScenarioFile.Tool.SIMULATE);
        assertEquals("two groups", s.description());
        assertEquals(3, s.library().robotArms());
        assertEquals(new Scenario.ScaleFloor(100, 4, 20), s.scaleFloor());
        Experiment.Simulation recall = s.experiments().get(0).sim();
        assertEquals(new Experiment.Simulation("atlas", 7, 2000, 4, "MA", Experiment.Layout.SCATTERED, 50, 1000,
                3_600_000, 0, 0), recall);
        Experiment writes = s.experiments().get(1);
        assertEquals("atlas", writes.sim().group());
        assertEquals(100, writes.sim().filesPerDataset());
        assertEquals(new Sizes.Either(new Sizes.LogUniform(10_000, 100_000_000),
                new Sizes.Uniform(2_000_000_000L, 5_000_000_000L)), writes.sizes());
        assertEquals(new Sizes.Fixed(100_000_000), s.experiments().get(2).sizes());
        assertEquals("cms", s.experiments().get(2).sim().group(), "the group is the name unless given");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "type: adt ; experiments: [{name: a, files: 10, datasets: 2}]|experiments[0].datasets: does not apply with files",
        "type: adt ; experiments: [{name: a, inputs: r}]|experiments[0].inputs: tapeq simulate cannot recall",
        "type: adt ; experiments: [{name: a, files: 10, layot: scattered}]|experiments[0].layot: unknown key (did you mean layout?)",
        "type: adt ; experiments: [{name: a, files: 10, requestRate: 10/s, spread: 1h}]|experiments[0].spread: does not apply with requestRate",
        "type: carousel ; experiments: [{name: a, files: 10, window: 10%, requests: 5}]|experiments[0].requests: does not apply to carousel",
        "type: burst ; experiments: [{name: a, requests: 5}]|type: tapeq simulate does not run a burst",
        "type: dt ; experiments: [{name: a, rate: 1GB/s, duration: 1h, size: {distribution: uniform, min: 1GB}}]|experiments[0].size.max: required for distribution uniform",
        "type: dt ; experiments: [{name: a, rate: 1GB/s, duration: 1h, size: {distribution: normal}}]|experiments[0].size.distribution: \"normal\" is not one of",
        "type: dt ; experiments: [{name: a, rate: 1GB/s, duration: 1h, size: {either: [{median: 1GB}]}}]|experiments[0].size.either: must list two",
        "type: dt ; experiments: [{name: a, rate: 1GB/s, duration: 1h, barcodes: ab}]|experiments[0].barcodes: \"ab\" must be",
        "type: dt ; experiments: [{name: a, rate: 1GB/s, duration: 1h}] ; scaleFloor: {tapes: 2}|scaleFloor.tapes: unknown key",
    })
    void parseForTheSimulator_badInput_namesFileAndKey(String yaml, String expected) {
        ConfigException e = assertThrows(ConfigException.class,
                () -> ScenarioFile.parse(yaml.replace(" ; ", "\n"), "bad.yaml", null, ScenarioFile.Tool.SIMULATE));
        assertTrue(e.getMessage().startsWith("bad.yaml: " + expected), e.getMessage());
    }

    @Test
    void parseForTheHarness_simulatorOnlyKeys_ignored_simulatorOnlyFilesNeedDatasets() {
        Scenario s = ScenarioFile.parse("type: adt\nexperiments: [{name: a, datasets: 2, filesPerDataset: 3, "
                + "files: 100, layout: scattered, requestRate: 5/s}]\n", "adt.yaml");
        assertEquals(2, s.experiments().get(0).datasets());
        ConfigException e = assertThrows(ConfigException.class,
                () -> ScenarioFile.parse("type: adt\nexperiments: [{name: a, files: 100}]\n", "adt.yaml"));
        assertTrue(e.getMessage().startsWith("adt.yaml: experiments[0].datasets: required"), e.getMessage());
    }

    @Test
    void load_missingOrEmptyFile_namesTheFile(@TempDir Path dir) throws IOException {
        Path missing = dir.resolve("none.yaml");
        assertEquals(missing + ": no such file",
                assertThrows(ConfigException.class, () -> ScenarioFile.load(missing)).getMessage());
        Path empty = Files.writeString(dir.resolve("empty.yaml"), "  \n");
        assertTrue(assertThrows(ConfigException.class, () -> ScenarioFile.load(empty)).getMessage()
                .startsWith(empty + ": the file is empty"));
    }
}
