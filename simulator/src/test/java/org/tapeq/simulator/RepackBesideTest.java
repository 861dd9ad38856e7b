package org.tapeq.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;

import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.tape.sim.PhysicsProfile;
import org.tapeq.workload.Workload;

/** The engine's repack beside a recall campaign, in virtual time on the simulated library. */
class RepackBesideTest {

    @Test
    void recallBesideRepack_repackEndsDoneEveryFileMoved_everyRecallAnswered_recallNotFasterBesideIt() {
        Workload w = Scenarios.get("recall-beside-repack").build(1, 0.05);
        assertEquals(1, w.repackSources().size());
        SimPolicies.SimPolicy tapeq = SimPolicies.get("tapeq");
        PolicyResult beside = SimulationRun.run(w, tapeq, PhysicsProfile.NOMINAL, new HashMap<>(), null, true);
        PolicyResult alone = SimulationRun.run(w, tapeq, PhysicsProfile.NOMINAL, new HashMap<>(), null, false);

        RepackBeside.Progress p = beside.repack();
        assertEquals(1, p.cartridges());
        assertEquals(1, p.emptied(), "the source is left EMPTY");
        assertTrue(p.bytesTotal() > 0);
        assertEquals(p.bytesTotal(), p.bytesDone(), "every live byte moved");
        assertEquals(0, p.filesFailed());
        assertTrue(p.bytesAtRecallEnd() <= p.bytesDone());
        assertTrue(p.endS() > 0);
        assertEquals(w.source().requestCount(), beside.completed(), "every recall answered");
        assertEquals(0, beside.failed());
        assertNull(alone.repack());
        assertEquals(w.source().requestCount(), alone.completed());
        assertTrue(beside.makespanS() >= alone.makespanS(), beside.makespanS() + " < " + alone.makespanS());
        System.out.printf("recall-beside-repack 0.05, tapeq: makespan %.2f h alone, %.2f h beside; repack %s%n",
                alone.makespanS() / 3600, beside.makespanS() / 3600, p);
    }

    @Test
    void simulate_aRepackScenario_printsTheSlowdownTable() {
        var out = new java.io.StringWriter();
        var cl = new picocli.CommandLine(new SimulateCommand());
        cl.setOut(new java.io.PrintWriter(out));
        cl.setErr(new java.io.PrintWriter(new java.io.StringWriter()));
        assertEquals(0, cl.execute("recall-beside-repack", "--scale", "0.05", "--policies", "tapeq"));
        assertTrue(out.toString().contains("beside the engine's repack"), out.toString());
        assertTrue(out.toString().matches("(?s).*\\ntapeq\\s+\\d+\\.\\d+\\s+\\d+\\.\\d+\\s+-?\\d+\\.\\d%.*"),
                out.toString());
    }
}
