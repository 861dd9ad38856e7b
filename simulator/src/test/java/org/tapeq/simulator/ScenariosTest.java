package org.tapeq.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.model.FlushRequest;
import org.tapeq.scheduler.model.StageRequest;
import org.tapeq.workload.Carousel;
import org.tapeq.workload.TapeImage;
import org.tapeq.workload.Trace;
import org.tapeq.workload.Workload;

class ScenariosTest {

    private static long stages(List<Trace.Arrival> d) {
        return d.stream().filter(a -> a.request() instanceof StageRequest).count();
    }

    private static long flushes(List<Trace.Arrival> d) {
        return d.stream().filter(a -> a.request() instanceof FlushRequest).count();
    }

    @Test
    void bulkRecallIsOneBurstOfDistinctCataloguedFiles() {
        Workload w = Scenarios.get("bulk-recall").build(1, 0.01);
        List<Trace.Arrival> d = w.source().demand();
        assertEquals(1000, d.size());
        assertTrue(d.stream().allMatch(a -> a.atMillis() < 1000 && a.request() instanceof StageRequest),
                "one burst at 1 000 requests per second");
        Set<String> onTape = new HashSet<>();
        for (TapeImage t : w.tapes()) {
            t.files().forEach(f -> f.members().forEach(m -> onTape.add(m.pnfsid())));
            assertTrue(t.bytes() <= w.media().capacityBytes(), t.barcode() + " overfilled");
        }
        Set<String> requested = new HashSet<>();
        d.forEach(a -> requested.add(((StageRequest) a.request()).pnfsid()));
        assertEquals(1000, requested.size());
        assertEquals(onTape, requested);
        assertEquals(2, w.tapes().size());
    }

    @Test
    void scatteredWritesEveryFileAloneAndColocatedKeepsDatasetsTogether() {
        Workload scattered = Scenarios.get("bulk-recall-scattered").build(1, 0.01);
        for (TapeImage t : scattered.tapes()) {
            t.files().forEach(f -> assertTrue(f.members().size() <= 1));
        }
        Workload colocated = Scenarios.get("bulk-recall").build(1, 0.01);
        for (TapeImage t : colocated.tapes()) {
            String previous = null;
            Set<String> finished = new HashSet<>();
            for (TapeImage.TapeFile f : t.files()) {
                if (f.members().isEmpty()) {
                    continue;
                }
                String ds = f.members().get(0).dataset();
                assertTrue(f.members().stream().allMatch(m -> m.dataset().equals(ds)), "one dataset per aggregate");
                if (!ds.equals(previous)) {
                    assertTrue(finished.add(ds), "dataset " + ds + " is contiguous on " + t.barcode());
                }
                previous = ds;
            }
        }
    }

    @Test
    void carouselWindowIsATenthOfTheInputs() {
        Workload w = Scenarios.get("carousel").build(2, 0.02);
        Carousel c = (Carousel) w.source();
        assertEquals(1000, c.requestCount());
        assertEquals(100, c.window());
        assertTrue(c.minimumSpanMillis() > 0);
    }

    @Test
    void writeScenariosOfferTheirRateWithSmallFiles() {
        Workload w = Scenarios.get("dt-write").build(1, 0.02);
        List<Trace.Arrival> d = w.source().demand();
        assertEquals(d.size(), flushes(d));
        long small = d.stream().filter(a -> ((FlushRequest) a.request()).size() <= 100_000_000).count();
        assertTrue(small > d.size() / 3, "many small files: " + small + " of " + d.size());
        long bytes = d.stream().mapToLong(a -> ((FlushRequest) a.request()).size()).sum();
        double seconds = d.get(d.size() - 1).atMillis() / 1000d;
        assertEquals(2.0e9, bytes / seconds, 0.1e9, "offered rate");
        Workload hundred = Scenarios.get("dt-write-100mb").build(1, 0.02);
        assertTrue(hundred.source().demand().stream()
                .allMatch(a -> ((FlushRequest) a.request()).size() == 100_000_000));
        assertTrue(w.tapes().stream().allMatch(t -> t.files().isEmpty() && !t.isFull()), "blank writable tapes");
    }

    @Test
    void mixedHasTwoGroupsReadingAndOneWriting() {
        Workload w = Scenarios.get("mixed").build(1, 0.02);
        List<Trace.Arrival> d = w.source().demand();
        assertTrue(flushes(d) > 0);
        Set<String> groups = new HashSet<>();
        d.stream().filter(a -> a.request() instanceof StageRequest)
                .forEach(a -> groups.add(((StageRequest) a.request()).group()));
        assertEquals(Set.of("atlas", "cms"), groups);
        assertTrue(d.stream().anyMatch(a -> a.atMillis() == 3_600_000 && a.request() instanceof StageRequest));
    }

    @Test
    void trickleSpreadsRequestsOverHours() {
        List<Trace.Arrival> d = Scenarios.get("trickle").build(1, 0.02).source().demand();
        assertEquals(100, stages(d));
        long last = d.get(d.size() - 1).atMillis();
        assertTrue(last > 4 * 3_600_000L && last < 16 * 3_600_000L, "last arrival at " + last);
    }

    @Test
    void sameSeedSameWorkloadOtherSeedAnother() {
        var a = Scenarios.get("bulk-recall").build(5, 0.01).source().demand();
        var b = Scenarios.get("bulk-recall").build(5, 0.01).source().demand();
        var c = Scenarios.get("bulk-recall").build(6, 0.01).source().demand();
        assertEquals(a, b);
        assertTrue(!a.equals(c));
    }

    @Test
    void everyBuiltInScenarioIsAFileOfItsOwnName_withADescription() {
        for (String name : Scenarios.names()) {
            Scenarios.Sim s = Scenarios.get(name);
            assertEquals(name, s.name());
            assertTrue(!s.description().isBlank(), name);
        }
    }

    @Test
    void unknownNamesAreErrorsNamingTheChoices() {
        var e = assertThrows(IllegalArgumentException.class, () -> Scenarios.get("bulk"));
        assertTrue(e.getMessage().contains("bulk-recall") && e.getMessage().contains("trickle"), e.getMessage());
        var p = assertThrows(IllegalArgumentException.class, () -> SimPolicies.get("lifo"));
        assertTrue(p.getMessage().contains("fifo") && p.getMessage().contains("tapeq-file-sequence"), p.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Scenarios.get("trickle").build(1, 0));
    }
}
