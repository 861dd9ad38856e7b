package org.tapeq.simulator;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.UnaryOperator;

import org.tapeq.scheduler.engine.SchedulerConfig;
import org.tapeq.scheduler.policy.MountPolicies;
import org.tapeq.scheduler.policy.MountPolicy;
import org.tapeq.scheduler.policy.QueueView;
import org.tapeq.scheduler.policy.ReadOrder;
import org.tapeq.scheduler.policy.ReadOrders;
import org.tapeq.scheduler.tape.sim.SimulatedLibrary;

/**
 * The policies the simulator compares, by name: the scheduler's registry ({@link MountPolicies}: tapeq, dcache,
 * endit, cta, fifo, where {@code cta}'s software RAO uses the drive-reported end-of-wrap positions as CTA does) plus
 * references: {@code tapeq-file-sequence}, tapeq's mount decisions with the reads of each mount in tape
 * file-sequence order (how much locate time the serpentine order saves); {@code cta-drive-rao}, CTA with the
 * drive's recommended access order (true physics, {@link DriveTruth}); {@code tapeq-wrap-ends}, tapeq's order
 * on the drive-reported wrap ends; {@code tapeq-nominal}, tapeq's order on the nominal estimate without learning
 * each cartridge's layout from its locates (tapeq before issue 17 item 4); {@code fifo}, one request at a time (a legacy worst case; {@code dcache}, dCache's
 * own recall scheduler, is the "plain dCache" baseline).
 *
 * <p>Writes: dCache's script HSM and CTA write each file as its own tape file, so {@code dcache}, {@code fifo} and
 * {@code cta}
 * run with aggregation off (one file per aggregate); CTA writes buffered tape marks, so {@code cta}'s filemarks
 * cost no synchronous flush; ENDIT hands files to TSM, which aggregates the files of a
 * transaction, so {@code endit} keeps the scheduler's aggregation, like {@code tapeq}; ENDIT's retriever runs one
 * dsmc retrieve at a time by default, so {@code endit} reads with one drive.
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

        /** The policy's instance; {@code drive} is what the simulated drives know, for baselines that use it. */
        MountPolicy create(SchedulerConfig config, DriveTruth drive);
    }

    public static final String TAPEQ_FILE_SEQUENCE = "tapeq-file-sequence";
    public static final String CTA_DRIVE_RAO = "cta-drive-rao";
    public static final String TAPEQ_WRAP_ENDS = "tapeq-wrap-ends";
    public static final String TAPEQ_NOMINAL = "tapeq-nominal";

    private static final Map<String, SimPolicy> REGISTRY = new LinkedHashMap<>();

    static {
        for (String name : MountPolicies.names()) {
            boolean oneFilePerTapeFile = name.equals("fifo") || name.equals("dcache") || name.equals("cta");
            boolean cta = name.equals("cta");
            // ENDIT runs retriever_maxworkers dsmc retrieves at a time, default 1 (Endit.pm): one reading drive
            UnaryOperator<SchedulerConfig.Builder> configure = name.equals("endit") ? b -> b.maxReadDrives(1)
                    : b -> oneFilePerTapeFile ? b.aggregateFiles(1) : b;
            register(name, configure, (c, drive) -> {
                MountPolicy p = MountPolicies.create(name, c.mountCriteria());
                // CTA's software RAO positions files with the drive's end-of-wrap positions
                return cta ? new WithReadOrder(p, drive.withWrapEnds(p.readOrder()), false) : p;
            }, cta ? 0 : SimulatedLibrary.DEFAULT_FILEMARK_MILLIS);
        }
        register(CTA_DRIVE_RAO, b -> b.aggregateFiles(1), (c, drive) ->
                new WithReadOrder(MountPolicies.create("cta", c.mountCriteria()), drive.driveRao(), false), 0);
        register(TAPEQ_FILE_SEQUENCE, b -> b,
                (c, drive) -> new WithReadOrder(MountPolicies.create("tapeq", c.mountCriteria()),
                        ReadOrders.create(ReadOrders.FILE_SEQUENCE), false),
                SimulatedLibrary.DEFAULT_FILEMARK_MILLIS);
        register(TAPEQ_WRAP_ENDS, b -> b, (c, drive) -> {
            MountPolicy p = MountPolicies.create("tapeq", c.mountCriteria());
            return new WithReadOrder(p, drive.withWrapEnds(p.readOrder()), false);
        }, SimulatedLibrary.DEFAULT_FILEMARK_MILLIS);
        register(TAPEQ_NOMINAL, b -> b, (c, drive) -> {
            MountPolicy p = MountPolicies.create("tapeq", c.mountCriteria());
            return new WithReadOrder(p, p.readOrder(), false);
        }, SimulatedLibrary.DEFAULT_FILEMARK_MILLIS);
    }

    private SimPolicies() {
    }

    private static void register(String name, UnaryOperator<SchedulerConfig.Builder> configure,
                                 BiFunction<SchedulerConfig, DriveTruth, MountPolicy> create, long filemarkMillis) {
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
            public MountPolicy create(SchedulerConfig config, DriveTruth drive) {
                return create.apply(config, drive);
            }
        });
    }

    public static Set<String> names() {
        return REGISTRY.keySet();
    }

    /** The baselines and tapeq, in table order. */
    public static List<String> defaults() {
        return List.of("dcache", "endit", "cta", "tapeq");
    }

    /** The policy of this name; an unknown name is an error naming the choices. */
    public static SimPolicy get(String name) {
        SimPolicy p = REGISTRY.get(name);
        if (p == null) {
            throw new IllegalArgumentException("unknown policy '" + name + "'; known: " + String.join(", ", names()));
        }
        return p;
    }

    /** A policy with another read order, learning the layout or not; everything else delegated. */
    private record WithReadOrder(MountPolicy delegate, ReadOrder order, boolean learnsLayout) implements MountPolicy {
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
