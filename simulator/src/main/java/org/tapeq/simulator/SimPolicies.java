package org.tapeq.simulator;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.tapeq.scheduler.engine.SchedulerConfig;
import org.tapeq.scheduler.policy.MountPolicies;
import org.tapeq.scheduler.policy.MountPolicy;
import org.tapeq.scheduler.policy.QueueView;
import org.tapeq.scheduler.policy.ReadOrder;
import org.tapeq.scheduler.policy.ReadOrders;
import org.tapeq.scheduler.tape.sim.SimulatedLibrary;
import org.tapeq.scheduler.tape.sim.TapeMarks;

/**
 * The policies the simulator compares, by name: the scheduler's registry ({@link MountPolicies}: tapeq, dcache,
 * endit, cta, fifo) plus references. Each runs on simulated drives with the features it assumes
 * ({@link DriveFeatures}): {@code cta} on drives that report their end-of-wrap positions (CTA's software RAO uses
 * them); {@code cta-drive-rao} and {@code tapeq-drive-rao} on drives that also compute a recommended access order
 * (GENERATE/RECEIVE RECOMMENDED ACCESS ORDER, with the true physics), which both policies then use through the
 * engine; {@code tapeq-wrap-ends}, tapeq on drives that report their wrap ends; every other row on drives that offer
 * neither (like the virtual labs'). References: {@code tapeq-file-sequence}, tapeq's mount decisions with the reads
 * of each mount in tape file-sequence order; {@code tapeq-nominal}, tapeq's order on the nominal estimate without
 * learning each cartridge's layout from its locates; {@code tapeq-scale}, tapeq learning only each cartridge's
 * bytes-per-wrap scale, not its wrap boundaries; {@code tapeq-sync-marks}, tapeq writing a synchronous tape mark
 * after every tape file (as before it buffered them); {@code fifo}, one request at a time (a legacy worst case;
 * {@code dcache}, dCache's own recall scheduler, is the "plain dCache" baseline).
 *
 * <p>Writes: dCache's script HSM and CTA write each file as its own tape file, so {@code dcache}, {@code fifo} and
 * {@code cta} run with aggregation off (one file per aggregate); CTA writes buffered tape marks and flushes after
 * 200 files or 32 GB, so {@code cta} pays one synchronous flush per such batch rather than per file; ENDIT hands
 * files to TSM, which aggregates the files of a transaction, so {@code endit} keeps the scheduler's aggregation,
 * like {@code tapeq}; ENDIT's retriever runs one dsmc retrieve at a time by default, so {@code endit} reads with
 * one drive.
 */
public final class SimPolicies {

    /**
     * What the simulated drives offer a policy: their end-of-wrap positions, and a recommended access order over at
     * most {@code accessOrderLimit} ranges per request (0: none).
     */
    public record DriveFeatures(boolean wrapEnds, int accessOrderLimit) {
        public static final DriveFeatures NONE = new DriveFeatures(false, 0);
        public static final DriveFeatures WRAP_ENDS = new DriveFeatures(true, 0);
        /**
         * Wrap ends and a recommended access order over at most {@link #DRIVE_RAO_LIMIT} ranges per request.
         */
        public static final DriveFeatures DRIVE_RAO = new DriveFeatures(true, DRIVE_RAO_LIMIT);
    }

    /**
     * Ranges a simulated drive orders per request: an assumption (a real drive reports its own limit, RECEIVE
     * RECOMMENDED ACCESS ORDER with UDS_LIMITS; CTA reads it in {@code DriveGeneric::getLimitUDS}).
     */
    public static final int DRIVE_RAO_LIMIT = 2048;

    /**
     * A synchronous filemark after every plain append (dCache's HSM script, ENDIT's TSM). tapeq appends with buffered
     * marks and flushes the drive itself ({@code flushFiles}, {@code flushBytes}: {@code TapeLibrary#flush}), which
     * the simulated library charges one synchronous flush per flush, whatever this setting.
     */
    static final TapeMarks SYNCHRONOUS = TapeMarks.synchronous(SimulatedLibrary.DEFAULT_FILEMARK_MILLIS);
    /**
     * CTA: buffered tape marks, flushed after 200 files or 32 GB (cta-taped's {@code ArchiveFlushBytesFiles}
     * default, {@code TapedConfiguration.hpp}; {@code maxFilesBeforeFlush}/{@code maxBytesBeforeFlush} of the
     * tape write task).
     */
    static final TapeMarks CTA_MARKS = TapeMarks.buffered(SimulatedLibrary.DEFAULT_FILEMARK_MILLIS, 200,
            32_000_000_000L);

    /** One policy as the simulator runs it: a name, how its scheduler configuration differs, its instance. */
    public interface SimPolicy {
        String name();

        /** Settings that belong to the policy's model of a system (applied after the scenario's). */
        SchedulerConfig.Builder configure(SchedulerConfig.Builder config);

        /**
         * How this system's tape marks cost when it writes: the library's synchronous filemark after every tape file,
         * or buffered tape marks with the system's periodic flush (CTA).
         */
        default TapeMarks tapeMarks() {
            return SYNCHRONOUS;
        }

        /** What the simulated drives offer this policy. */
        default DriveFeatures drives() {
            return DriveFeatures.NONE;
        }

        /** The policy's instance. */
        MountPolicy create(SchedulerConfig config);
    }

    public static final String TAPEQ_FILE_SEQUENCE = "tapeq-file-sequence";
    public static final String CTA_DRIVE_RAO = "cta-drive-rao";
    public static final String TAPEQ_DRIVE_RAO = "tapeq-drive-rao";
    public static final String TAPEQ_WRAP_ENDS = "tapeq-wrap-ends";
    public static final String TAPEQ_NOMINAL = "tapeq-nominal";
    public static final String TAPEQ_SCALE = "tapeq-scale";
    public static final String TAPEQ_SYNC_MARKS = "tapeq-sync-marks";

    /** Prefix of the parametrised reference rows {@code tapeq-remount-guard-<N>m}. */
    public static final String REMOUNT_GUARD_PREFIX = "tapeq-remount-guard-";
    private static final Pattern REMOUNT_GUARD = Pattern.compile(Pattern.quote(REMOUNT_GUARD_PREFIX) + "(\\d{1,4})m");

    private static final Map<String, SimPolicy> REGISTRY = new LinkedHashMap<>();

    static {
        for (String name : MountPolicies.names()) {
            boolean oneFilePerTapeFile = name.equals("fifo") || name.equals("dcache") || name.equals("cta");
            boolean cta = name.equals("cta");
            // ENDIT runs retriever_maxworkers dsmc retrieves at a time, default 1 (Endit.pm): one reading drive
            UnaryOperator<SchedulerConfig.Builder> system = name.equals("endit") ? b -> b.maxReadDrives(1)
                    : b -> oneFilePerTapeFile ? b.aggregateFiles(1) : b;
            // the baselines write as their systems do (the library's marks: synchronous, or CTA's own flushes)
            UnaryOperator<SchedulerConfig.Builder> configure = name.equals("tapeq") ? system
                    : b -> system.apply(b).flushFiles(0);
            // CTA's software RAO positions files with the drive's end-of-wrap positions
            register(name, configure, c -> MountPolicies.create(name, c.mountCriteria()),
                    cta ? CTA_MARKS : SYNCHRONOUS, cta ? DriveFeatures.WRAP_ENDS : DriveFeatures.NONE);
        }
        register(CTA_DRIVE_RAO, b -> b.aggregateFiles(1).flushFiles(0),
                c -> MountPolicies.create("cta", c.mountCriteria()),
                CTA_MARKS, DriveFeatures.DRIVE_RAO);
        register(TAPEQ_DRIVE_RAO, b -> b, c -> MountPolicies.create("tapeq", c.mountCriteria()),
                SYNCHRONOUS, DriveFeatures.DRIVE_RAO);
        register(TAPEQ_FILE_SEQUENCE, b -> b,
                c -> new WithReadOrder(MountPolicies.create("tapeq", c.mountCriteria()),
                        ReadOrders.create(ReadOrders.FILE_SEQUENCE), false, false),
                SYNCHRONOUS, DriveFeatures.NONE);
        register(TAPEQ_WRAP_ENDS, b -> b, c -> MountPolicies.create("tapeq", c.mountCriteria()),
                SYNCHRONOUS, DriveFeatures.WRAP_ENDS);
        register(TAPEQ_NOMINAL, b -> b, c -> {
            MountPolicy p = MountPolicies.create("tapeq", c.mountCriteria());
            return new WithReadOrder(p, p.readOrder(), false, false);
        }, SYNCHRONOUS, DriveFeatures.NONE);
        // tapeq as it wrote before buffered tape marks: a synchronous mark after every tape file
        register(TAPEQ_SYNC_MARKS, b -> b.flushFiles(0), c -> MountPolicies.create("tapeq", c.mountCriteria()),
                SYNCHRONOUS, DriveFeatures.NONE);
        register(TAPEQ_SCALE, b -> b, c -> {
            MountPolicy p = MountPolicies.create("tapeq", c.mountCriteria());
            return new WithReadOrder(p, p.readOrder(), true, false);
        }, SYNCHRONOUS, DriveFeatures.NONE);
    }

    private SimPolicies() {
    }

    private static void register(String name, UnaryOperator<SchedulerConfig.Builder> configure,
                                 Function<SchedulerConfig, MountPolicy> create, TapeMarks tapeMarks,
                                 DriveFeatures drives) {
        REGISTRY.put(name, policy(name, configure, create, tapeMarks, drives));
    }

    private static SimPolicy policy(String name, UnaryOperator<SchedulerConfig.Builder> configure,
                                    Function<SchedulerConfig, MountPolicy> create, TapeMarks tapeMarks,
                                    DriveFeatures drives) {
        return new SimPolicy() {
            @Override
            public TapeMarks tapeMarks() {
                return tapeMarks;
            }

            @Override
            public DriveFeatures drives() {
                return drives;
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
        };
    }

    public static Set<String> names() {
        return REGISTRY.keySet();
    }

    /** The baselines and tapeq, in table order. */
    public static List<String> defaults() {
        return List.of("dcache", "endit", "cta", "tapeq");
    }

    /**
     * The policy of this name, or {@code tapeq-remount-guard-<N>m}: tapeq with a remount guard of N minutes in place
     * of the configured one (rows side by side on the same seeds, to choose the guard); an unknown name is an error
     * naming the choices.
     */
    public static SimPolicy get(String name) {
        SimPolicy p = REGISTRY.get(name);
        if (p != null) {
            return p;
        }
        Matcher guard = REMOUNT_GUARD.matcher(name);
        if (guard.matches()) {
            long millis = Long.parseLong(guard.group(1)) * 60_000L;
            SimPolicy tapeq = REGISTRY.get("tapeq");
            return policy(name, b -> tapeq.configure(b).remountGuardMillis(millis), tapeq::create,
                    tapeq.tapeMarks(), tapeq.drives());
        }
        throw new IllegalArgumentException("unknown policy '" + name + "'; known: " + String.join(", ", names())
                + ", " + REMOUNT_GUARD_PREFIX + "<minutes>m");
    }

    /** A policy with another read order, learning the layout (scale, wraps) or not; everything else delegated. */
    private record WithReadOrder(MountPolicy delegate, ReadOrder order, boolean learnsLayout, boolean learnsWraps)
            implements MountPolicy {
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
