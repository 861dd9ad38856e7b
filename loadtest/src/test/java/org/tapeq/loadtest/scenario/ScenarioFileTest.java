package org.tapeq.loadtest.scenario;

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
import org.tapeq.daemon.config.ConfigException;
import org.tapeq.scheduler.tape.sim.DataMode;

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
        try (Stream<Path> s = Files.list(Path.of("scenarios"))) {
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
    void load_missingOrEmptyFile_namesTheFile(@TempDir Path dir) throws IOException {
        Path missing = dir.resolve("none.yaml");
        assertEquals(missing + ": no such file",
                assertThrows(ConfigException.class, () -> ScenarioFile.load(missing)).getMessage());
        Path empty = Files.writeString(dir.resolve("empty.yaml"), "  \n");
        assertTrue(assertThrows(ConfigException.class, () -> ScenarioFile.load(empty)).getMessage()
                .startsWith(empty + ": the file is empty"));
    }
}
