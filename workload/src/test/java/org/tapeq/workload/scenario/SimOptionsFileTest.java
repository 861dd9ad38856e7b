package org.tapeq.workload.scenario;

import org.tapeq.workload.SimOptions;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import org.tapeq.config.ConfigException;

/** The simulator's top-level sections of a scenario file: faults, repack, stageBuffer. */
class SimOptionsFileTest {

    private static final String HEAD = String.join("\n",
            "type: adt",
            "library: {drives: 10}",
            "experiments:",
            "  - {name: atlas, files: 100}",
            "");

    private static Scenario parse(String tail) {
        return ScenarioFile.parse(HEAD + tail, "s.yaml", null, ScenarioFile.Tool.SIMULATE);
    }

    @Test
    void parse_noSections_noOptions() {
        assertSame(SimOptions.NONE, parse("").options());
    }

    @Test
    void parse_everySection_readsEveryKey() {
        SimOptions o = parse(String.join("\n",
                "faults:",
                "  driveFailures:",
                "    - {drives: 3, at: 2h, repair: 4h}",
                "    - {drives: 1, first: 9, at: 30m}",
                "  slowDrives: {drives: 2, factor: 0.5}",
                "  robotOutages:",
                "    - {at: 1h, for: 20m}",
                "repack: {cartridges: 4, files: 8000, targets: 2, barcodes: RQ, start: 1h, maxDrives: 3, share: 0.25}",
                "stageBuffer: {size: 20TB, drainRate: 2GB/s}",
                "")).options();
        assertEquals(List.of(new SimOptions.DriveFailure(0, 3, 7_200_000, 14_400_000),
                new SimOptions.DriveFailure(9, 1, 1_800_000, 7_200_000)), o.faults().driveFailures());
        assertEquals(new SimOptions.SlowDrives(2, 0.5), o.faults().slowDrives());
        assertEquals(List.of(new SimOptions.RobotOutage(3_600_000, 1_200_000)), o.faults().robotOutages());
        assertEquals(new SimOptions.Repack(4, 8000, 2, "RQ", 3_600_000, 3, 0.25), o.repack());
        assertEquals(new SimOptions.StageBuffer(20_000_000_000_000L, 2e9), o.stageBuffer());
    }

    @Test
    void parse_repackDefaults_andNoFaults() {
        SimOptions o = parse("repack: {cartridges: 1, files: 10, targets: 1}\n").options();
        assertEquals(new SimOptions.Repack(1, 10, 1, "RP", 0, 1, 0), o.repack());
        assertSame(SimOptions.Faults.NONE, o.faults());
        assertNull(o.stageBuffer());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "faults: {driveFailures: [{drives: 11, at: 1h}]}|s.yaml: faults.driveFailures[0].drives: ",
        "faults: {driveFailures: [{drives: 2, first: 9, at: 1h}]}|s.yaml: faults.driveFailures[0].drives: drives 9 to 10 fail, but the library has 10",
        "faults: {driveFailures: [{drives: 2}]}|s.yaml: faults.driveFailures[0].at: required",
        "faults: {driveFailures: [{drives: 2, at: 1h, repair: 0s}]}|s.yaml: faults.driveFailures[0].repair: must be longer than 0",
        "faults: {driveFailure: []}|s.yaml: faults.driveFailure: unknown key (did you mean driveFailures?)",
        "faults: {slowDrives: {drives: 2, factor: 1.5}}|s.yaml: faults.slowDrives.factor: a slow drive streams at most",
        "faults: {robotOutages: [{at: 1h}]}|s.yaml: faults.robotOutages[0].for: required",
        "repack: {cartridges: 1, files: 10}|s.yaml: repack.targets: required",
        "repack: {cartridges: 1, files: 10, targets: 1, barcodes: ABCD}|s.yaml: repack.barcodes: \"ABCD\" must be 1 to 3",
        "repack: {cartridges: 1, files: 10, targets: 1, maxDrives: 11}|s.yaml: repack.maxDrives: ",
        "repack: {cartridges: 1, files: 10, targets: 1, share: 1.5}|s.yaml: repack.share: backgroundShare must be between 0 and 1, was 1.5",
        "stageBuffer: {size: 1TB}|s.yaml: stageBuffer.drainRate: required",
        "stageBuffer: {size: 0, drainRate: 1GB/s}|s.yaml: stageBuffer.size: must be more than 0 bytes",
    })
    void parse_badSection_errorNamesTheFileAndKey(String yaml, String message) {
        ConfigException e = assertThrows(ConfigException.class, () -> parse(yaml + "\n"));
        assertTrue(e.getMessage().startsWith(message), e.getMessage());
    }
}
