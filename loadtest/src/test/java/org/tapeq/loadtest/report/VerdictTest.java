package org.tapeq.loadtest.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.tapeq.loadtest.run.RequestLog;
import org.tapeq.loadtest.run.RequestLog.End;
import org.tapeq.loadtest.run.RequestLog.Kind;
import org.tapeq.loadtest.run.RunRecord;
import org.tapeq.loadtest.run.Sample;
import org.tapeq.workload.scenario.Scenario;
import org.tapeq.workload.scenario.ScenarioFile;

class VerdictTest {

    static final long MS = 1_000_000;

    static Scenario scenario(String targets) {
        return ScenarioFile.parse("type: dt\nexperiments: [{name: atlas, rate: 100MB/s, duration: 1h}]\n"
                + "targets: " + targets + "\n", "verdict.yaml");
    }

    /** 100 flushes of 1 GB; request i is submitted at i s and answered {@code latency} s later (speed 1). */
    static RunRecord run(Scenario s, End last, long lastLatency, boolean partial, List<Sample> samples) {
        RequestLog log = new RequestLog(100);
        for (int i = 0; i < 100; i++) {
            int r = log.add(Kind.FLUSH, 0, 1_000_000_000L, i * 1000 * MS);
            log.end(r, i == 99 ? last : End.COMPLETED, (i * 1000 + (i == 99 ? lastLatency : 10) * 1000) * MS);
        }
        return new RunRecord(s, "test", Instant.EPOCH, 200_000 * MS, 1, partial, partial ? "stopped by test" : null,
                log, samples, Map.of("TQ0000L9", 2L), 0, 0, 0, null, List.of(), List.of(), 0, null);
    }

    /** One sample per second for {@code seconds}, moving {@code rate} bytes per second. */
    static List<Sample> steady(int seconds, long rate) {
        List<Sample> samples = new ArrayList<>();
        for (int t = 0; t <= seconds; t++) {
            samples.add(new Sample(t * 1000L, t * rate, 0, 0, 0, t / 60));
        }
        return samples;
    }

    @Test
    void of_everythingWithinTargets_passes() {
        Scenario s = scenario("{sustainedRate: 900MB/s, window: 60s, maxP99Latency: 30s}");
        RunRecord r = run(s, End.COMPLETED, 10, false, steady(120, 1_000_000_000L));
        Verdict v = Verdict.of(r, Summary.of(r));
        assertTrue(v.passed(), v.toString());
        assertEquals(List.of("complete", "lost", "failed", "SPI violations", "sustained rate", "p99 latency"),
                v.checks().stream().map(Verdict.Check::name).toList());
    }

    @Test
    void of_oneLost_fails() {
        RunRecord r = run(scenario("{}"), End.LOST, 10, false, steady(10, 1));
        Verdict v = Verdict.of(r, Summary.of(r));
        assertFalse(v.passed());
        assertEquals("1", v.checks().get(1).measured());
        assertFalse(v.checks().get(1).passed());
    }

    @Test
    void of_oneFailed_failsUnlessAllowed() {
        RunRecord r = run(scenario("{}"), End.FAILED, 10, false, steady(10, 1));
        assertFalse(Verdict.of(r, Summary.of(r)).passed());
        RunRecord allowed = run(scenario("{maxFailed: 1}"), End.FAILED, 10, false, steady(10, 1));
        assertTrue(Verdict.of(allowed, Summary.of(allowed)).passed());
    }

    @Test
    void of_partialRun_fails() {
        RunRecord r = run(scenario("{}"), End.OUTSTANDING, 0, true, steady(10, 1));
        Verdict v = Verdict.of(r, Summary.of(r));
        assertFalse(v.passed());
        assertEquals("stopped: stopped by test", v.checks().get(0).measured());
    }

    @Test
    void of_rateBelowTarget_orRunShorterThanWindow_fails() {
        Scenario s = scenario("{sustainedRate: 900MB/s, window: 60s}");
        RunRecord slow = run(s, End.COMPLETED, 10, false, steady(120, 800_000_000L));
        assertFalse(Verdict.of(slow, Summary.of(slow)).passed());
        RunRecord shortRun = run(s, End.COMPLETED, 10, false, steady(30, 1_000_000_000L));
        Verdict v = Verdict.of(shortRun, Summary.of(shortRun));
        assertFalse(v.passed());
        assertEquals("run shorter than 60.0 s", v.checks().get(4).measured());
    }

    @Test
    void of_oneSlowOfHundred_p99IsNearestRank_passes() {
        Scenario s = scenario("{maxP99Latency: 30s}");
        // 99 requests take 10 s; the 100th 40 s: p99 (nearest rank) is the 99th value, 10 s; max 40 s
        RunRecord oneSlow = run(s, End.COMPLETED, 40, false, steady(10, 1));
        Summary sum = Summary.of(oneSlow);
        assertEquals(10_000, sum.latencyMillis().get(Kind.FLUSH)[1], 1e-6);
        assertEquals(40_000, sum.latencyMillis().get(Kind.FLUSH)[2], 1e-6);
        assertTrue(Verdict.of(oneSlow, sum).passed());
    }

    @Test
    void bestRate_findsTheBestWindow_inLibraryTime() {
        List<Sample> samples = new ArrayList<>(steady(60, 100));
        // then 10 s at 1000 B/s
        long base = samples.get(samples.size() - 1).bytesFlushed();
        for (int t = 1; t <= 10; t++) {
            samples.add(new Sample((60 + t) * 1000L, base + t * 1000L, 0, 0, 0, 0));
        }
        assertEquals(1000, Summary.bestRate(samples, 1, 10_000), 1e-9);
        assertEquals((100 * 10 + 1000 * 10) / 20.0, Summary.bestRate(samples, 1, 20_000), 1e-9);
        // at speed 10 a wall second is ten library seconds: the same bytes over ten times the time
        assertEquals(100, Summary.bestRate(samples, 10, 100_000), 1e-9);
        assertEquals(-1, Summary.bestRate(samples, 1, 71_000));
    }
}
