package org.tapeq.scheduler.engine.drive;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.ByteSink;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.Inventory;
import org.tapeq.scheduler.tape.TapeFileSource;
import org.tapeq.scheduler.tape.TapeLibrary;
import org.tapeq.scheduler.tape.WrittenFile;

class DriveOrderRequestTest {

    /** A drive that answers each request with its ranges reversed, and remembers the requests. */
    private static final class Reversing implements TapeLibrary {
        final List<long[]> asked = new ArrayList<>();

        @Override public int blockSize() { return 1; }
        @Override public void inventory(Completion<Inventory> done) { throw new UnsupportedOperationException(); }
        @Override public void mount(String d, String b, Completion<Void> done) { throw new UnsupportedOperationException(); }
        @Override public void unmount(String d, Completion<Void> done) { throw new UnsupportedOperationException(); }
        @Override public void locate(String d, long b, Completion<Void> done) { throw new UnsupportedOperationException(); }
        @Override public void locateFile(String d, int f, Completion<Long> done) { throw new UnsupportedOperationException(); }
        @Override public void read(String d, long s, long l, ByteSink k, Completion<Long> done) { throw new UnsupportedOperationException(); }
        @Override public void append(String d, TapeFileSource s, Completion<WrittenFile> done) { throw new UnsupportedOperationException(); }
        @Override public void writeLabel(String d, TapeFileSource s, Completion<WrittenFile> done) { throw new UnsupportedOperationException(); }
        @Override public void flush(String d, org.tapeq.scheduler.tape.FlushCheck e, Completion<Void> done) { throw new UnsupportedOperationException(); }
        @Override public java.util.Optional<org.tapeq.scheduler.tape.CartridgeCapacity> capacity(String d) { return java.util.Optional.empty(); }
        @Override public void alerts(org.tapeq.scheduler.tape.DriveAlerts alerts) { }

        @Override
        public void recommendAccessOrder(String drive, long[] starts, long[] ends, Completion<int[]> done) {
            asked.add(starts.clone());
            int[] order = new int[starts.length];
            for (int i = 0; i < order.length; i++) {
                order[i] = order.length - 1 - i;
            }
            done.succeeded(order);
        }
    }

    private static DriveOrderRequest.Piece ask(TapeLibrary lib, long[] starts, List<int[]> groups, int limit) {
        return ask(lib, starts, groups, limit, Integer.MAX_VALUE);
    }

    private static DriveOrderRequest.Piece ask(TapeLibrary lib, long[] starts, List<int[]> groups, int limit,
                                               int passLimit) {
        long[] ends = new long[starts.length];
        for (int i = 0; i < ends.length; i++) {
            ends[i] = starts[i] + 1;
        }
        DriveOrderRequest.Piece[] result = new DriveOrderRequest.Piece[1];
        TapeFault[] failed = new TapeFault[1];
        DriveOrderRequest.ask(lib, "d0", starts, ends, groups, limit, passLimit, new Completion<>() {
            @Override
            public void succeeded(DriveOrderRequest.Piece piece) {
                result[0] = piece;
            }

            @Override
            public void failed(TapeFault fault) {
                failed[0] = fault;
            }
        });
        assertNull(failed[0]);
        return result[0];
    }

    @Test
    void onlyTheFirstPieceIsAsked_theFirstGroupCutAtTheLimit() {
        Reversing lib = new Reversing();
        long[] starts = {70, 10, 40, 20, 60, 30, 50};
        // group 1: spans 1, 3, 5, 2 (blocks 10, 20, 30, 40); group 2: spans 6, 4, 0; limit 3
        DriveOrderRequest.Piece p = ask(lib, starts, List.of(new int[] {1, 3, 5, 2}, new int[] {6, 4, 0}), 3);
        assertEquals(1, lib.asked.size());
        assertArrayEquals(new long[] {10, 20, 30}, lib.asked.get(0));
        assertArrayEquals(new int[] {5, 3, 1}, p.order());
        assertTrue(p.more());
        // the whole of a last group within the limit: nothing more
        p = ask(lib, new long[] {40, 20}, List.of(new int[] {1, 0}), 3);
        assertArrayEquals(new int[] {0, 1}, p.order());
        assertFalse(p.more());
    }

    @Test
    void thePassIsThePoliciesPassLimit_theGroupsCutThere() {
        Reversing lib = new Reversing();
        long[] starts = {70, 10, 40, 20, 60, 30, 50};
        // pass limit 5: group 1 whole (1, 3, 5, 2) and span 6 of group 2; the piece is at most 3 of them
        DriveOrderRequest.Piece p = ask(lib, starts, List.of(new int[] {1, 3, 5, 2}, new int[] {6, 4, 0}), 3, 5);
        assertArrayEquals(new int[] {1, 3, 5, 2, 6}, p.pass());
        assertTrue(p.more());
        // pass limit 2 under a drive limit of 3: the piece is the whole pass
        p = ask(lib, starts, List.of(new int[] {1, 3, 5, 2}, new int[] {6, 4, 0}), 3, 2);
        assertArrayEquals(new long[] {10, 20}, lib.asked.get(lib.asked.size() - 1));
        assertArrayEquals(new int[] {1, 3}, p.pass());
        assertFalse(p.more());
    }

    @Test
    void aPieceOfOneSpan_needsNoQuestion() {
        Reversing lib = new Reversing();
        DriveOrderRequest.Piece p = ask(lib, new long[] {40, 20}, List.of(new int[] {1}, new int[] {0}), 3);
        assertEquals(0, lib.asked.size());
        assertArrayEquals(new int[] {1}, p.order());
        assertTrue(p.more());
    }

    @Test
    void groupsThatMissSpans_areRejected() {
        assertThrows(IllegalArgumentException.class, () -> ask(new Reversing(), new long[] {1, 2, 3},
                List.of(new int[] {0, 1}), 10));
    }

    @Test
    void notAPermutation_named() {
        assertNull(DriveOrderRequest.notAPermutation(new int[] {2, 0, 1}, 3));
        assertNotNull(DriveOrderRequest.notAPermutation(new int[] {0, 0, 1}, 3));
        assertNotNull(DriveOrderRequest.notAPermutation(new int[] {0, 1}, 3));
        assertNotNull(DriveOrderRequest.notAPermutation(new int[] {0, 1, 3}, 3));
        assertNotNull(DriveOrderRequest.notAPermutation(null, 3));
    }
}
