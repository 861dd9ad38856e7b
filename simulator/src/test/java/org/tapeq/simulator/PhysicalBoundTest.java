package org.tapeq.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.catalog.jdbc.JdbcCatalog;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.tape.sim.SimulatedLibrary;
import org.tapeq.scheduler.time.VirtualEventLoop;
import org.tapeq.workload.FileSpec;
import org.tapeq.workload.RequestSource;
import org.tapeq.workload.TapeImage;
import org.tapeq.workload.Trace;

class PhysicalBoundTest {

    private static final MediaType M = MediaType.LTO9;
    private static final long GB = 1_000_000_000L;

    record Setup(SimulatedLibrary library, Map<String, TapeLoader.Location> locations) {
    }

    static Setup load(int drives, List<TapeImage> tapes) throws Exception {
        VirtualEventLoop loop = new VirtualEventLoop(0);
        var b = SimulatedLibrary.builder(loop).sizeOnly().drives(drives).seed(3);
        for (TapeImage t : tapes) {
            b.cartridge(t.barcode(), M);
        }
        SimulatedLibrary library = b.build();
        try (JdbcCatalog catalog = JdbcCatalog.open("jdbc:sqlite::memory:")) {
            return new Setup(library, TapeLoader.load(tapes, M, library, catalog, 0, 0));
        }
    }

    @Test
    void oneFileIsMountLocateAndStreaming() throws Exception {
        FileSpec f = new FileSpec("P1", 4 * GB, "ds", "atlas");
        Setup s = load(1, List.of(new TapeImage("A00000L9", "atlas").filler(500 * GB).aggregate(List.of(f))));
        TapeLoader.Location where = s.locations().get("P1");
        PhysicalBound b = PhysicalBound.of(List.of(new Trace.Arrival(0, RequestSource.stage(f, 0))), 0,
                s.locations(), s.library(), M, 1);
        double expected = s.library().exchangeMillis() + M.loadMillis()
                + s.library().locateFromLoadPointMillis("A00000L9", where.startBlock()) + 4 * GB * 1000d / 400_000_000;
        assertEquals(expected, b.boundMillis(), 1e-6);
        assertEquals(1, b.mounts());
        assertTrue(s.library().locateFromLoadPointMillis("A00000L9", where.startBlock()) > 1000,
                "500 GB into the tape is not at the load point");
    }

    @Test
    void twoCartridgesOnOneDriveNeedOneUnmountBetween() throws Exception {
        FileSpec f1 = new FileSpec("P1", 10 * GB, "ds", "atlas");
        FileSpec f2 = new FileSpec("P2", 20 * GB, "ds", "atlas");
        List<TapeImage> tapes = List.of(new TapeImage("A00000L9", "atlas").aggregate(List.of(f1)),
                new TapeImage("A00001L9", "atlas").aggregate(List.of(f2)));
        List<Trace.Arrival> demand = List.of(new Trace.Arrival(0, RequestSource.stage(f1, 0)),
                new Trace.Arrival(0, RequestSource.stage(f2, 1)));
        Setup one = load(1, tapes);
        PhysicalBound b1 = PhysicalBound.of(demand, 0, one.locations(), one.library(), M, 1);
        Setup two = load(2, tapes);
        PhysicalBound b2 = PhysicalBound.of(demand, 0, two.locations(), two.library(), M, 2);
        long exchange = one.library().exchangeMillis();
        double mountsAndStreaming = 2 * (exchange + M.loadMillis())
                + one.library().locateFromLoadPointMillis("A00000L9", one.locations().get("P1").startBlock())
                + one.library().locateFromLoadPointMillis("A00001L9", one.locations().get("P2").startBlock())
                + 30 * GB * 1000d / 400_000_000;
        double cheapestUnmount = Math.min(
                one.library().rewindMillisFrom("A00000L9", one.locations().get("P1").endBlock()),
                one.library().rewindMillisFrom("A00001L9", one.locations().get("P2").endBlock()))
                + M.unloadMillis() + exchange;
        assertEquals(mountsAndStreaming + cheapestUnmount, b1.boundMillis(), 1e-6);
        assertEquals(b2.longestMillis(), b2.boundMillis(), 1e-6, "with two drives the longer cartridge decides");
        assertTrue(b2.boundMillis() < b1.boundMillis());
    }

    @Test
    void lateArrivalsAndACarouselWindowBoundTheMakespan() throws Exception {
        FileSpec f = new FileSpec("P1", GB, "ds", "atlas");
        Setup s = load(1, List.of(new TapeImage("A00000L9", "atlas").aggregate(List.of(f))));
        PhysicalBound late = PhysicalBound.of(List.of(new Trace.Arrival(3_600_000, RequestSource.stage(f, 0))), 0,
                s.locations(), s.library(), M, 1);
        assertEquals(3_600_000 + GB * 1000d / 400_000_000, late.boundMillis(), 1e-6);
        PhysicalBound windowed = PhysicalBound.of(List.of(new Trace.Arrival(0, RequestSource.stage(f, 0))),
                7_200_000, s.locations(), s.library(), M, 1);
        assertEquals(7_200_000, windowed.boundMillis(), 1e-6, "the window, not the file, decides here");
    }
}
