package org.tapeq.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.tape.sim.PhysicsProfile;
import org.tapeq.workload.Datasets;
import org.tapeq.workload.Workload;

/** A scenario's faults and stage buffer, run by the engine on the simulated library. */
class ScenarioOptionsTest {

    private static final String RECALL = String.join("\n",
            "type: adt",
            "library: {drives: 4}",
            "experiments:",
            "  - {name: atlas, files: 400, cartridges: 4, layout: colocated, order: mixed}",
            "");

    private static PolicyResult run(Workload w, String policy) {
        return SimulationRun.run(w, SimPolicies.get(policy), PhysicsProfile.NOMINAL, new HashMap<>(), null);
    }

    private static Workload workload(Path dir, String name, String yaml) throws IOException {
        return Scenarios.get(Files.writeString(dir.resolve(name + ".yaml"), yaml).toString()).build(1, 1);
    }

    private static long requestedBytes(Workload w) {
        return w.source().demand().stream().mapToLong(a -> ((org.tapeq.scheduler.model.StageRequest) a.request()).size()).sum();
    }

    @Test
    void stageBuffer_drainedSlowerThanTheDrivesRead_recallWaitsForIt_everyRequestEnds(@TempDir Path dir)
            throws IOException {
        Workload free = workload(dir, "free", RECALL);
        Workload bounded = workload(dir, "bounded", RECALL + "stageBuffer: {size: 50GB, drainRate: 200MB/s}\n");
        for (String policy : new String[] {"tapeq", "endit"}) {
            PolicyResult a = run(free, policy);
            PolicyResult b = run(bounded, policy);
            assertEquals(bounded.source().requestCount(), b.completed(), policy);
            assertEquals(0, b.failed(), policy);
            // every file but the last 50 GB has left the buffer before the last read is granted
            double drainS = (requestedBytes(bounded) - 50 * Datasets.GB) / 200e6;
            assertTrue(b.makespanS() >= drainS, policy + ": " + b.makespanS() + " < " + drainS);
            assertTrue(b.makespanS() > a.makespanS(), policy + ": " + b.makespanS() + " vs " + a.makespanS());
        }
    }

    @Test
    void faults_fromTheScenarioFile_slowTheRecall_asTheCommandLineDoes_everyRequestEnds(@TempDir Path dir)
            throws IOException {
        Workload calm = workload(dir, "calm", RECALL);
        Workload failing = workload(dir, "failing", RECALL
                + "faults: {driveFailures: [{drives: 2, at: 10m, repair: 3h}], robotOutages: [{at: 5m, for: 10m}]}\n");
        PolicyResult c = run(calm, "tapeq");
        PolicyResult f = run(failing, "tapeq");
        PolicyResult cli = SimulationRun.run(calm, SimPolicies.get("tapeq"), PhysicsProfile.NOMINAL, new HashMap<>(),
                DriveFailures.parse("2@0.1667+3"));
        assertEquals(failing.source().requestCount(), f.completed());
        assertEquals(0, f.failed());
        assertTrue(f.makespanS() > c.makespanS(), f.makespanS() + " vs " + c.makespanS());
        assertTrue(cli.makespanS() > c.makespanS(), cli.makespanS() + " vs " + c.makespanS());
    }

    @Test
    void builtInScenariosWithOptions_parseAndBuild() {
        assertEquals(1, Scenarios.get("recall-beside-repack").build(1, 0.05).repackSources().size());
        assertEquals(1_000_000_000_000L, Scenarios.get("recall-stage-buffer").build(1, 0.05).options().stageBuffer()
                .bytes());
        assertEquals(1, Scenarios.get("recall-drive-failures").build(1, 0.05).options().faults().driveFailures()
                .size());
    }
}
