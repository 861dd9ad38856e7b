package org.tapeq.scheduler.policy;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/** The read orders by name, for configuration and for comparing them on the same workloads. */
public final class ReadOrders {

    public static final String ARRIVAL = "arrival";
    public static final String FILE_SEQUENCE = "file-sequence";
    public static final String BATCHED_4000 = "batched-4000";
    public static final String SERPENTINE = "serpentine";

    private static final Map<String, Supplier<ReadOrder>> FACTORIES = factories();

    private ReadOrders() {
    }

    private static Map<String, Supplier<ReadOrder>> factories() {
        Map<String, Supplier<ReadOrder>> m = new LinkedHashMap<>();
        m.put(ARRIVAL, ArrivalOrder::new);
        m.put(FILE_SEQUENCE, FileSequenceOrder::new);
        m.put(BATCHED_4000, () -> new BatchedOrder(BatchedOrder.CTA_BATCH_SIZE));
        m.put(SERPENTINE, SerpentineOrder::new);
        return Collections.unmodifiableMap(m);
    }

    /** The registered names, in a fixed order (baseline first). */
    public static Set<String> names() {
        return FACTORIES.keySet();
    }

    /** A new instance of the named order; names are case-sensitive. */
    public static ReadOrder create(String name) {
        Supplier<ReadOrder> factory = FACTORIES.get(name);
        if (factory == null) {
            throw new IllegalArgumentException(
                    "unknown read order '" + name + "'; known: " + String.join(", ", names()));
        }
        return factory.get();
    }
}
