package org.tapeq.daemon.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The open-addressing table does what a HashMap of pnfsid to request does, through growth, removals and shrinking. */
class PnfsidTableTest {

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3})
    void randomPutsAndRemoves_leaveTheSameEntriesAsAHashMap(int seed) {
        Random rnd = new Random(seed);
        PnfsidTable table = new PnfsidTable();
        Map<String, Tracked> model = new HashMap<>();
        long id = 0;
        for (int step = 0; step < 100_000; step++) {
            // few keys at first (many collisions and removals in runs), more later (growth), then mostly removals
            int keys = step < 25_000 ? 64 : 10_000;
            String pnfsid = String.format("0000%020X", rnd.nextInt(keys));
            int op = rnd.nextInt(step < 75_000 ? 3 : 6);
            if (step % 9_973 == 0) {
                table.reserve(step % 2 == 0 ? rnd.nextInt(20_000) : 0); // a restart's first listing, and its end
            }
            if (op == 0) {
                Tracked t = new Tracked(++id, pnfsid, null, 0, null);
                assertSame(model.put(pnfsid, t), table.put(t));
            } else if (op == 1) {
                assertSame(model.get(pnfsid), table.get(pnfsid));
            } else if (op == 2 && model.containsKey(pnfsid) && rnd.nextBoolean()) {
                Tracked other = new Tracked(++id, pnfsid, null, 0, null);
                assertNull(table.remove(pnfsid, other), "only that request is removed");
                Tracked current = model.remove(pnfsid);
                assertSame(current, table.remove(pnfsid, current));
            } else {
                assertSame(model.remove(pnfsid), table.remove(pnfsid, null));
            }
            assertEquals(model.size(), table.size());
        }
        for (Map.Entry<String, Tracked> e : model.entrySet()) {
            assertSame(e.getValue(), table.get(e.getKey()));
        }
        assertEquals(new HashSet<>(model.values()), new HashSet<>(table.matching(t -> true)));
    }

    @Test
    void aReservation_makesRoomAtOnce_keepsItThroughRemovals_andTheTableShrinksOnceItEnds() {
        PnfsidTable table = new PnfsidTable();
        table.reserve(1_000);
        int reserved = table.capacity();
        assertTrue(reserved >= 2_000, "room for 1 000 at half load: " + reserved);
        for (int i = 0; i < 1_000; i++) {
            table.put(new Tracked(i, String.format("0000%020X", i), null, 0, null));
        }
        assertEquals(reserved, table.capacity(), "filled without growing");
        for (int i = 0; i < 990; i++) {
            table.remove(String.format("0000%020X", i), null);
        }
        assertEquals(reserved, table.capacity(), "not shrunk while reserved");
        table.reserve(0);
        table.remove(String.format("0000%020X", 990), null);
        assertTrue(table.capacity() < reserved, "shrinks again once the reservation ends: " + table.capacity());
        for (int i = 991; i < 1_000; i++) {
            assertEquals(i, table.get(String.format("0000%020X", i)).id);
        }
    }
}
