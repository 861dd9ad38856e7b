package org.tapeq.simulator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

import org.tapeq.scheduler.catalog.jdbc.JdbcCatalog;
import org.tapeq.scheduler.engine.Scheduler;
import org.tapeq.scheduler.engine.SchedulerConfig;
import org.tapeq.scheduler.model.FlushRequest;
import org.tapeq.scheduler.model.StageRequest;
import org.tapeq.scheduler.model.StageSpace;
import org.tapeq.scheduler.tape.sim.PhysicsProfile;
import org.tapeq.scheduler.tape.sim.SimLibraryBuilder;
import org.tapeq.scheduler.tape.sim.SimStats;
import org.tapeq.scheduler.tape.sim.SimulatedLibrary;
import org.tapeq.scheduler.time.VirtualEventLoop;
import org.tapeq.workload.RequestSource;
import org.tapeq.workload.TapeImage;
import org.tapeq.workload.Workload;
import org.tapeq.workload.SimOptions;

/*
 * Design notes: one policy on one workload. Everything is built fresh per run (virtual clock, size-only library
 * in memory, SQLite catalog in memory), the cartridges are preloaded, and the real Scheduler runs with the
 * policy's instance until the loop has nothing left to do. The catalog is the product's JdbcCatalog: the
 * preload commits one transaction per cartridge and the burst is looked up in batches (Scheduler.stage(List)),
 * which keeps catalog cost a small part of a 100 000-file run (docs/benchmarks.md gives the figure), so no
 * simulation-only catalog is needed. Labels are not read at mounts (size-only: nothing to read). A scenario's
 * faults are set on the library's switches at their times (ScenarioFaults); its repack is the engine's own, asked for
 * through the Scheduler with a temporary spool directory (RepackBeside); its stage buffer is the engine's StageSpace
 * (StageBuffer), the requests then carrying a target whose bytes are discarded.
 */

/** Runs one policy on one workload in virtual time and measures it. */
final class SimulationRun {

    /** Virtual start of every run (any fixed instant: results do not depend on it). */
    static final long START_MILLIS = 1_700_000_000_000L;
    /** The run's loop is the calling thread, so its CPU time is the simulation's cost even on a busy machine. */
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private SimulationRun() {
    }

    /** The policy's figures on the workload under the nominal physics, with the workload's bound. */
    static PolicyResult run(Workload w, SimPolicies.SimPolicy policy) {
        return run(w, policy, PhysicsProfile.NOMINAL, new HashMap<>());
    }

    /**
     * The policy's figures on the workload in a library with the given physics, with the workload's bound.
     * {@code bounds} keeps the bound per profile for this workload (the caller's, one map per workload): it is the
     * same for every policy, and pricing every file's cheapest entry is quadratic per cartridge.
     */
    static PolicyResult run(Workload w, SimPolicies.SimPolicy policy, PhysicsProfile physics,
                            Map<PhysicsProfile, PhysicalBound> bounds) {
        return run(w, policy, physics, bounds, null);
    }

    /** As {@link #run(Workload, SimPolicies.SimPolicy, PhysicsProfile, Map)}, with drives failing mid-run if given. */
    static PolicyResult run(Workload w, SimPolicies.SimPolicy policy, PhysicsProfile physics,
                            Map<PhysicsProfile, PhysicalBound> bounds, DriveFailures failures) {
        return run(w, policy, physics, bounds, failures, true);
    }

    /**
     * As {@link #run(Workload, SimPolicies.SimPolicy, PhysicsProfile, Map, DriveFailures)}; {@code repack} false
     * leaves the scenario's repack sources untouched (the same workload alone, for the slowdown the repack
     * causes).
     */
    static PolicyResult run(Workload w, SimPolicies.SimPolicy policy, PhysicsProfile physics,
                            Map<PhysicsProfile, PhysicalBound> bounds, DriveFailures failures, boolean repack) {
        SimOptions.Repack repackOptions = repack && !w.repackSources().isEmpty() ? w.options().repack() : null;
        VirtualEventLoop loop = new VirtualEventLoop(START_MILLIS);
        SimLibraryBuilder lb = SimulatedLibrary.builder(loop).sizeOnly().drives(w.drives()).robotArms(w.robotArms())
                .seed(w.seed()).physics(physics).tapeMarks(policy.tapeMarks())
                .reportsWrapEnds(policy.drives().wrapEnds()).accessOrderLimit(policy.drives().accessOrderLimit());
        for (TapeImage t : w.tapes()) {
            lb.cartridge(t.barcode(), w.media());
        }
        SchedulerConfig.Builder cb = policy.configure(w.config().apply(SchedulerConfig.builder().checkLabels(false)));
        if (repackOptions != null) {
            cb.maxBackgroundDrives(repackOptions.maxDrives()).backgroundShare(repackOptions.share());
        }
        SchedulerConfig config = cb.build();
        Path spool = repackOptions == null ? null : tempDirectory();
        try {
            return run(w, policy, physics, bounds, failures, loop, lb, config, spool, repackOptions);
        } finally {
            if (spool != null) {
                deleteTree(spool);
            }
        }
    }

    private static PolicyResult run(Workload w, SimPolicies.SimPolicy policy, PhysicsProfile physics,
                                    Map<PhysicsProfile, PhysicalBound> bounds, DriveFailures failures,
                                    VirtualEventLoop loop, SimLibraryBuilder lb, SchedulerConfig config, Path spool,
                                    SimOptions.Repack repackOptions) {
        try (SimulatedLibrary library = lb.build(); JdbcCatalog catalog = JdbcCatalog.open("jdbc:sqlite::memory:")) {
            long setupStart = System.nanoTime();
            Map<String, TapeLoader.Location> locations = TapeLoader.load(w.tapes(), w.media(), library, catalog,
                    loop.now(), config.fullMarginBytes());
            PhysicalBound bound = bounds.computeIfAbsent(physics, p -> PhysicalBound.of(w.source().demand(),
                    w.source().minimumSpanMillis(), locations, library, w.media(), w.drives()));
            long wallStart = System.nanoTime();
            long cpuStart = THREADS.getCurrentThreadCpuTime();
            double setupS = (wallStart - setupStart) / 1e9;
            RunRecorder recorder = new RunRecorder(w.source().requestCount(), loop::now);
            Scheduler[] built = new Scheduler[1];
            StageBuffer buffer = w.options().stageBuffer() == null ? null : new StageBuffer(loop,
                    w.options().stageBuffer(), () -> built[0].spaceFreed(),
                    policy.name().equals("endit") ? cartridges(locations) : null);
            Scheduler scheduler = Scheduler.builder().loop(loop).library(library).catalog(catalog).config(config)
                    .policy(policy.create(config)).listener(recorder).repackSpool(spool)
                    .stageSpace(buffer == null ? StageSpace.UNLIMITED : buffer).build();
            built[0] = scheduler;
            await(loop, scheduler.start());
            long t0 = loop.now();
            recorder.begin();
            ScenarioFaults.schedule(loop, library.faults(), scheduler, w.options().faults(), failures, w.drives());
            RepackBeside repack = repackOptions == null ? null
                    : RepackBeside.start(loop, scheduler, w.repackSources(), repackOptions.startMillis());
            long[] ends = new long[1];
            RequestSource.Submit submit = new RequestSource.Submit() {
                @Override
                public long now() {
                    return loop.now() - t0;
                }

                @Override
                public void at(long millis, Runnable action) {
                    loop.schedule(Math.max(0, millis - now()), action);
                }

                @Override
                public void stage(List<StageRequest> requests) {
                    List<StageRequest> staged = buffer == null ? requests
                            : requests.stream().map(StageBuffer::withTarget).toList();
                    for (StageRequest r : staged) {
                        recorder.submitted(r);
                    }
                    scheduler.stage(staged);
                }

                @Override
                public void flush(FlushRequest request) {
                    recorder.submitted(request);
                    scheduler.flush(request);
                }
            };
            recorder.then((request, outcome) -> {
                if (buffer != null && request instanceof StageRequest r) {
                    buffer.ended(r, outcome);
                }
                w.source().completed(request, outcome, submit);
                if (++ends[0] == w.source().requestCount() && repack != null) {
                    repack.workloadEnded();
                }
            });
            w.source().start(submit);
            loop.runUntilIdle();
            RepackBeside.Progress progress = repack == null ? null : repack.result(loop::runUntilIdle);
            double wallS = (System.nanoTime() - wallStart) / 1e9;
            double cpuS = (THREADS.getCurrentThreadCpuTime() - cpuStart) / 1e9;
            if (recorder.unsubmitted() > 0) {
                throw new IllegalStateException(policy.name() + " on " + w.scenario() + ": " + recorder.unsubmitted()
                        + " requests never submitted");
            }
            if (recorder.unfinished() > 0) {
                throw new IllegalStateException(policy.name() + " on " + w.scenario() + ": " + recorder.unfinished()
                        + " requests never ended");
            }
            return measure(w, policy.name(), recorder, library.stats(), bound, setupS, wallS, cpuS, progress);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static PolicyResult measure(Workload w, String name, RunRecorder r, SimStats stats, PhysicalBound bound,
                                        double setupS, double wallS, double cpuS, RepackBeside.Progress repack) {
        double makespanS = r.lastEndMillis() / 1000d;
        long busy = 0;
        long writing = 0;
        for (SimStats.DriveStats d : stats.drives().values()) {
            busy += d.busyMillis();
            writing += d.writeMillis();
        }
        double writeEfficiency = writing == 0 ? 0
                : stats.bytesWritten() / (w.media().rateBytesPerSecond() * (writing / 1000d));
        double driveSeconds = makespanS * w.drives();
        int cartridges = stats.mountsPerCartridge().size();
        double mbPerDrive = driveSeconds <= 0 ? 0 : r.usefulBytes() / 1e6 / driveSeconds;
        double[] latency = r.latencyQuantilesS(0.5, 0.99);
        return new PolicyResult(name, w.seed(), makespanS, bound.boundMillis() / 1000d,
                bound.bestLocateMillis() / 1000d, bound.entryMillis() / 1000d, bound.oracleLocateMillis() / 1000d,
                stats.mounts(), cartridges,
                cartridges == 0 ? 0 : stats.mounts() / (double) cartridges, stats.locateMillis() / 1000d,
                busy == 0 ? 0 : stats.locateMillis() / (double) busy, mbPerDrive,
                mbPerDrive * 1e6 / w.media().rateBytesPerSecond(), writeEfficiency, latency[0], latency[1],
                driveSeconds <= 0 ? 0 : Math.max(0, 1 - busy / 1000d / driveSeconds), r.completed(), r.failed(),
                setupS, wallS, cpuS, r.queueDepth(name), r.throughput(name), repack);
    }

    /** Each catalogued file's cartridge. */
    private static Map<String, String> cartridges(Map<String, TapeLoader.Location> locations) {
        Map<String, String> out = new HashMap<>(locations.size() * 2);
        locations.forEach((id, l) -> out.put(id, l.barcode()));
        return out;
    }

    private static Path tempDirectory() {
        try {
            return Files.createTempDirectory("tapeq-simulate-spool");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the repack spool directory", e);
        }
    }

    /** Removes the spool (a finished repack leaves it empty; a failed one may not). */
    private static void deleteTree(Path dir) {
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove the repack spool " + dir, e);
        }
    }

    private static void await(VirtualEventLoop loop, CompletableFuture<?> f) {
        loop.runUntilIdle();
        if (!f.isDone()) {
            throw new IllegalStateException("the scheduler did not start");
        }
        f.join();
    }
}
