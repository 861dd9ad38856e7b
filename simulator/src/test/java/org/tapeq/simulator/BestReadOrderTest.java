package org.tapeq.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.tape.sim.SimulatedLibrary;
import org.tapeq.workload.Datasets;
import org.tapeq.workload.FileSpec;
import org.tapeq.workload.TapeImage;

/** BestReadOrder against orders priced one hop at a time with the library's physics. */
class BestReadOrderTest {

    private static final long GB = 1_000_000_000L;
    private static final String BARCODE = "A00000L9";

    /** Locate milliseconds of reading the files in the given order from the load point, hop by hop. */
    private static double priced(List<TapeLoader.Location> order, SimulatedLibrary library) {
        double sum = library.locateFromLoadPointMillis(BARCODE, order.get(0).startBlock());
        for (int i = 1; i < order.size(); i++) {
            sum += BestReadOrder.hopMillis(library, BARCODE, order.get(i - 1).endBlock(), order.get(i).startBlock());
        }
        return sum;
    }

    private static List<TapeLoader.Location> locations(PhysicalBoundTest.Setup s, List<List<FileSpec>> datasets) {
        List<TapeLoader.Location> out = new ArrayList<>();
        for (List<FileSpec> ds : datasets) {
            for (FileSpec f : ds) {
                out.add(s.locations().get(f.pnfsid()));
            }
        }
        return out;
    }

    @Test
    void cartridge_datasetsFarApart_noWorseThanAnyOrderOfWholeDatasets() throws Exception {
        Datasets d = new Datasets(new SplittableRandom(5), "atlas");
        List<List<FileSpec>> datasets = d.atlasDatasets(600);
        TapeImage tape = new TapeImage(BARCODE, FileSpec.storageClass("atlas")).filler(3_000 * GB);
        long[] gaps = {4_000 * GB, 200 * GB, 2_500 * GB, 900 * GB};
        for (int i = 0; i < datasets.size(); i++) {
            tape.dataset(datasets.get(i), 10 * GB).filler(gaps[i % gaps.length]);
        }
        PhysicalBoundTest.Setup s = PhysicalBoundTest.load(1, List.of(tape));
        SimulatedLibrary library = s.library();
        double best = BestReadOrder.cartridge(locations(s, datasets), library);

        List<List<FileSpec>> order = new ArrayList<>(datasets);
        double fileSequence = priced(locations(s, order), library);
        assertTrue(best <= fileSequence, best + " > file sequence " + fileSequence);
        double cheapestWhole = fileSequence;
        SplittableRandom random = new SplittableRandom(1);
        for (int trial = 0; trial < 200; trial++) {
            for (int i = order.size() - 1; i > 0; i--) {
                java.util.Collections.swap(order, i, random.nextInt(i + 1));
            }
            double c = priced(locations(s, order), library);
            cheapestWhole = Math.min(cheapestWhole, c);
            assertTrue(best <= c + 1e-6, "dataset order " + trial + " costs " + c + " < best " + best);
        }
        assertTrue(cheapestWhole < fileSequence, "the layout should make the dataset order matter");
        System.out.printf("%d datasets: best %.0f s, best of 200 whole-dataset orders %.0f s, file sequence %.0f s%n",
                datasets.size(), best / 1000, cheapestWhole / 1000, fileSequence / 1000);
    }

    @Test
    void cartridge_oneDataset_isTheLocateToItsStartPlusTheHopsThrough() throws Exception {
        Datasets d = new Datasets(new SplittableRandom(9), "atlas");
        List<FileSpec> ds = d.atlasDatasets(50).get(0);
        TapeImage tape = new TapeImage(BARCODE, FileSpec.storageClass("atlas")).filler(700 * GB)
                .dataset(ds, 10 * GB);
        PhysicalBoundTest.Setup s = PhysicalBoundTest.load(1, List.of(tape));
        List<TapeLoader.Location> files = locations(s, List.of(ds));
        files.sort(Comparator.comparingLong(TapeLoader.Location::startBlock));
        double inOrder = priced(files, s.library());
        double best = BestReadOrder.cartridge(files, s.library());
        assertTrue(best <= inOrder + 1e-6, best + " > " + inOrder);
        assertTrue(best > 0, "700 GB into the tape is not at the load point");
    }

    @Test
    void locateMillis_scatteredFiles_haveNoReference() throws Exception {
        Datasets d = new Datasets(new SplittableRandom(3), "atlas");
        List<FileSpec> files = d.atlasDatasets(40).get(0);
        TapeImage tape = new TapeImage(BARCODE, FileSpec.storageClass("atlas"));
        for (FileSpec f : files) {
            tape.filler(100 * GB).aggregate(List.of(f));
        }
        PhysicalBoundTest.Setup s = PhysicalBoundTest.load(1, List.of(tape));
        assertTrue(Double.isNaN(BestReadOrder.locateMillis(List.of(locations(s, List.of(files))), s.library())));
        assertTrue(Double.isNaN(BestReadOrder.locateMillis(List.of(), s.library())));
        assertEquals(BestReadOrder.cartridge(locations(s, List.of(files.subList(0, 1))), s.library()),
                s.library().locateFromLoadPointMillis(BARCODE, s.locations().get(files.get(0).pnfsid()).startBlock()));
    }
}
