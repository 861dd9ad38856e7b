package org.tapeq.simulator;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.UnaryOperator;

import org.tapeq.scheduler.engine.SchedulerConfig;
import org.tapeq.scheduler.policy.MountPolicies;
import org.tapeq.scheduler.policy.MountPolicy;
import org.tapeq.scheduler.policy.QueueView;
import org.tapeq.scheduler.policy.ReadOrder;
import org.tapeq.scheduler.policy.ReadOrders;
import org.tapeq.scheduler.tape.sim.SimulatedLibrary;

/**
 * The policies the simulator compares, by name: the scheduler's registry ({@link MountPolicies}: tapeq, fifo,
 * endit, cta) plus {@code tapeq-file-sequence}, tapeq's mount decisions with the reads of each mount in tape
 * file-sequence order (the reference for how much locate time the serpentine order saves).
 *
 * <p>Writes: dCache's script HSM and CTA write each file as its own tape file, so {@code fifo} and {@code cta}
 * run with aggregation off (one file per aggregate); CTA writes buffered tape marks, so {@code cta}'s filemarks
 * cost no synchronous flush; ENDIT hands files to TSM, which aggregates the files of a
 * transaction, so {@code endit} keeps the scheduler's aggregation, like {@code tapeq}.
 */
public final class SimPolicies {

    /** One policy as the simulator runs it: a name, how its scheduler configuration differs, its instance. */
    public interface SimPolicy {
        String name();

        /** Settings that belong to the policy's model of a system (applied after the scenario's). */
        SchedulerConfig.Builder configure(SchedulerConfig.Builder config);

        /**
         * Milliseconds a filemark costs when this system writes: the library's synchronous filemark, or 0 where
         * the system writes buffered tape marks (CTA), whose occasional flush is not modelled.
         */
        default long filemarkMillis() {
            return SimulatedLibrary.DEFAULT_FILEMARK_MILLIS;
        }

        MountPolicy create(SchedulerConfig config);
    }

    public static final String TAPEQ_FILE_SEQUENCE = "tapeq-file-sequence";

    private static final Map<String, SimPolicy> REGISTRY = new LinkedHashMap<>();

    static {
        for (String name : MountPolicies.names()) {
            boolean oneFilePerTapeFile = name.equals("fifo") || name.equals("cta");
            register(name, b -> oneFilePerTapeFile ? b.aggregateFiles(1) : b, c -> MountPolicies.create(name, c.mountCriteria()),
                    name.equals("cta") ? 0 : SimulatedLibrary.DEFAULT_FILEMARK_MILLIS);
        }
        register(TAPEQ_FILE_SEQUENCE, b -> b,
                c -> new WithReadOrder(MountPolicies.create("tapeq", c.mountCriteria()), ReadOrders.create(ReadOrders.FILE_SEQUENCE)),
                SimulatedLibrary.DEFAULT_FILEMARK_MILLIS);
    }

    private SimPolicies() {
    }

    private static void register(String name, UnaryOperator<SchedulerConfig.Builder> configure,
                                 Function<SchedulerConfig, MountPolicy> create, long filemarkMillis) {
        REGISTRY.put(name, new SimPolicy() {
            @Override
            public long filemarkMillis() {
                return filemarkMillis;
            }

            @Override
            public String name() {
                return name;
            }

            @Override
            public SchedulerConfig.Builder configure(SchedulerConfig.Builder config) {
                return configure.apply(config);
            }

            @Override
            public MountPolicy create(SchedulerConfig config) {
                return create.apply(config);
            }
        });
    }

    public static Set<String> names() {
        return REGISTRY.keySet();
    }

    /** The baselines and tapeq, in table order. */
    public static List<String> defaults() {
        return List.of("fifo", "endit", "cta", "tapeq");
    }

    /** The policy of this name; an unknown name is an error naming the choices. */
    public static SimPolicy get(String name) {
        SimPolicy p = REGISTRY.get(name);
        if (p == null) {
            throw new IllegalArgumentException("unknown policy '" + name + "'; known: " + String.join(", ", names()));
        }
        return p;
    }

    /** A policy with another read order; everything else delegated. */
    private record WithReadOrder(MountPolicy delegate, ReadOrder order) implements MountPolicy {
        @Override
        public long eligibleAt(QueueView queue) {
            return delegate.eligibleAt(queue);
        }

        @Override
        public double rank(QueueView queue) {
            return delegate.rank(queue);
        }

        @Override
        public boolean keepMounted(QueueView mounted, QueueView best) {
            return delegate.keepMounted(mounted, best);
        }

        @Override
        public ReadOrder readOrder() {
            return order;
        }

        @Override
        public boolean joinsRunningPass() {
            return delegate.joinsRunningPass();
        }

        @Override
        public int passLimit() {
            return delegate.passLimit();
        }
    }
}
