package org.tapeq.scheduler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class ReadOrdersTest {

    @Test
    void names_registry_listsTheFourOrdersBaselineFirst() {
        assertEquals(List.of("arrival", "file-sequence", "batched-4000", "serpentine"),
                List.copyOf(ReadOrders.names()));
    }

    @Test
    void create_knownNames_giveFreshInstancesOfTheRightClass() {
        assertInstanceOf(ArrivalOrder.class, ReadOrders.create("arrival"));
        assertInstanceOf(FileSequenceOrder.class, ReadOrders.create("file-sequence"));
        assertEquals(4000, assertInstanceOf(BatchedOrder.class, ReadOrders.create("batched-4000")).batchSize());
        assertInstanceOf(SerpentineOrder.class, ReadOrders.create("serpentine"));
        assertNotSame(ReadOrders.create("serpentine"), ReadOrders.create("serpentine"));
        for (String name : ReadOrders.names()) {
            assertEquals(name, ReadOrders.create(name).toString());
        }
    }

    @Test
    void create_unknownName_failsListingTheKnownNames() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ReadOrders.create("rao"));
        assertTrue(e.getMessage().contains("'rao'") && e.getMessage().contains("serpentine"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new BatchedOrder(0));
    }
}
