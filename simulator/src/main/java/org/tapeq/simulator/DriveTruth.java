package org.tapeq.simulator;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.tapeq.scheduler.policy.CtaRecallOrder;
import org.tapeq.scheduler.policy.EstimatedGeometry;
import org.tapeq.scheduler.policy.ReadOrder;
import org.tapeq.scheduler.tape.sim.SimulatedLibrary;
import org.tapeq.scheduler.tape.sim.TruePositions;

/*
 * Design notes: what a drive knows about the cartridge it holds, for the baselines that use it. A real drive
 * reports its end-of-wrap positions (READ END OF WRAP POSITION) and, on enterprise and LTO-9 full-height drives,
 * computes a recommended access order with its own knowledge of the tape (GENERATE/RECEIVE RECOMMENDED ACCESS
 * ORDER). The simulated library is that drive's truth, so these orders ask it.
 *
 * A ReadOrder is handed the spans of one mounted cartridge but not its barcode (the engine's interface, unchanged
 * here). The cartridge is found as the one in a drive whose requested files start at every span's start block:
 * spans start at requested files' first blocks (TapeLoader's locations), and a set of start blocks that two
 * mounted cartridges share entirely does not occur in the simulator's layouts; if it did, the run stops with an
 * error rather than guessing.
 */

/** The simulated drive's own knowledge of the mounted tape, for the baselines that use it; see the design notes. */
final class DriveTruth {

    private final SimulatedLibrary library;
    private final Map<String, Set<Long>> startsByBarcode = new HashMap<>();

    DriveTruth(SimulatedLibrary library, Map<String, TapeLoader.Location> locations) {
        this.library = library;
        for (TapeLoader.Location l : locations.values()) {
            startsByBarcode.computeIfAbsent(l.barcode(), k -> new HashSet<>()).add(l.startBlock());
        }
    }

    /** The mounted cartridge these spans are on. */
    String cartridgeOf(long[] starts) {
        String found = null;
        for (String barcode : library.barcodesInDrives()) {
            Set<Long> known = startsByBarcode.get(barcode);
            boolean all = known != null;
            for (int i = 0; all && i < starts.length; i++) {
                all = known.contains(starts[i]);
            }
            if (all) {
                if (found != null) {
                    throw new IllegalStateException("spans match both " + found + " and " + barcode);
                }
                found = barcode;
            }
        }
        if (found == null) {
            throw new IllegalStateException("no cartridge in a drive holds requested files at these spans");
        }
        return found;
    }

    /** {@code order} with the scheduler's estimate corrected by the drive-reported end-of-wrap positions. */
    ReadOrder withWrapEnds(ReadOrder order) {
        return new ReadOrder() {
            @Override
            public int[] order(long headBlock, long[] starts, long[] ends, EstimatedGeometry g) {
                return order.order(headBlock, starts, ends,
                        g.withWrapEnds(library.wrapEndBlocks(cartridgeOf(starts))));
            }

            @Override
            public String toString() {
                return order + " with drive-reported wrap ends";
            }
        };
    }

    /**
     * The drive's recommended access order over CTA's batches ({@link CtaRecallOrder#batches}): within each batch,
     * shortest true locate first from where the head is (the drive knows its tape).
     */
    ReadOrder driveRao() {
        return new ReadOrder() {
            @Override
            public int[] order(long headBlock, long[] starts, long[] ends, EstimatedGeometry g) {
                String barcode = cartridgeOf(starts);
                int n = starts.length;
                long[] blocks = new long[2 * n + 1];
                for (int i = 0; i < n; i++) {
                    blocks[2 * i] = starts[i];
                    blocks[2 * i + 1] = ends[i];
                }
                blocks[2 * n] = headBlock;
                TruePositions p = library.truePositions(barcode, blocks);
                int[] order = new int[n];
                int k = 0;
                int at = 2 * n;
                for (int[] batch : CtaRecallOrder.batches(starts, ends, g.blockSize())) {
                    boolean[] done = new boolean[batch.length];
                    for (int step = 0; step < batch.length; step++) {
                        int best = -1;
                        long bestMillis = Long.MAX_VALUE;
                        for (int j = 0; j < batch.length; j++) {
                            long c = done[j] ? Long.MAX_VALUE : p.locateMillis(at, 2 * batch[j]);
                            if (c < bestMillis) {
                                bestMillis = c;
                                best = j;
                            }
                        }
                        done[best] = true;
                        order[k++] = batch[best];
                        at = 2 * batch[best] + 1;
                    }
                }
                return order;
            }

            @Override
            public String toString() {
                return "drive RAO";
            }
        };
    }

    /** For tests: the blocks' cartridges as the loader placed them. */
    List<String> cartridges() {
        return List.copyOf(startsByBarcode.keySet());
    }
}
