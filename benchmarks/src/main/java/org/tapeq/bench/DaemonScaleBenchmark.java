package org.tapeq.bench;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.tapeq.daemon.Daemon;
import org.tapeq.daemon.bridge.BridgeStatus;
import org.tapeq.daemon.config.DaemonConfig;
import org.tapeq.loadtest.run.PoolSide;
import org.tapeq.daemon.rehearsal.SizeOnlyTapes;
import org.tapeq.protocol.AtomicFiles;
import org.tapeq.protocol.Request;
import org.tapeq.protocol.RequestCodec;
import org.tapeq.protocol.RequestDirectory;
import org.tapeq.scheduler.engine.SchedulerStatus;
import org.tapeq.scheduler.tape.sim.SimStats;
import org.tapeq.scheduler.tape.sim.SimulatedLibrary;
import org.tapeq.daemon.rehearsal.ScratchTree;

/**
 * N concurrent stage requests (default 100 000) through a real tapeq daemon on a real filesystem. Not a test: it
 * asserts nothing beyond the run completing, and prints what it measured.
 *
 * <p>Design notes.
 * <ol>
 * <li><b>Tapes.</b> {@link SizeOnlyTapes} writes the N files through the real scheduler onto a size-only
 *     simulated library (virtual time), so the catalog and the library's journals are what a daemon would have
 *     written itself.</li>
 * <li><b>Daemon.</b> The real {@link Daemon}, started from a YAML file this program writes: one request
 *     directory, the size-only library on the same directory, the drives taken down before any request is
 *     written (as {@code tapeq drive down} does; the catalog keeps it over a restart), so every request stays
 *     queued through intake and restart.</li>
 * <li><b>Intake.</b> This thread writes N stage request files as tapeq's provider does (RequestCodec, written
 *     atomically), without extensions as the ENDIT provider's. Time to intake: first file written until the scheduler counts N stages
 *     submitted (status counter {@code stages_submitted}, polled every 50 ms).</li>
 * <li><b>Restart.</b> The daemon is closed with N requests queued (close leaves the request directory as it is
 *     and writes no catalog record, so the next start finds what a kill -9 would leave) and a new one started
 *     in the same JVM: restart time is {@code Daemon.start} until the new scheduler counts N stages submitted,
 *     without a JVM start. It reads and parses every request file again.</li>
 * <li><b>Completion.</b> The drives are put back up; one thread plays the pool: it lists {@code in/}, removes
 *     each delivered file's request file and then the file, as the providers do. Completions per second: N /
 *     (drives up until the last delivered file was taken).</li>
 * </ol>
 * Heap: used heap sampled every 20 ms (peak, garbage included), and the heap after a full GC with N queued (after
 * the intake and after the restart), less the heap with the daemon started and nothing queued: bytes per queued
 * request. {@code --histogram K} prints the K classes holding the most live heap with N queued. Status: the time
 * {@link Daemon#status()} and its JSON take (what {@code tapeq status} and {@code /status} answer), called in a loop
 * during the intake and the restart, and five times with N queued and the daemon quiet. The last line is every
 * figure as one JSON object, for {@code benchmarks/daemon-scale-compare.sh}. Per
 * phase it also prints the time spent in GC and the CPU time of this JVM and of other processes
 * ({@link CpuShare}): the writer and the pool thread share the machine with the daemon, and a build running
 * elsewhere on it shows up there.
 */
public final class DaemonScaleBenchmark {

    private static final long POLL_MILLIS = 50;
    private static final long PROGRESS_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final int n;
    private final int drives;
    private final int cartridges;
    private final long size;
    private final double speed;
    private final Path base;
    private final Path state;
    private final RequestDirectory dir;
    private final HeapPeak heap = new HeapPeak();
    private final int histogram;
    private final String label;

    private DaemonScaleBenchmark(int n, int drives, int cartridges, long size, double speed, Path base, int histogram,
                                 String label) throws IOException {
        this.n = n;
        this.histogram = histogram;
        this.label = label;
        this.drives = drives;
        this.cartridges = cartridges;
        this.size = size;
        this.speed = speed;
        this.base = base;
        this.state = Files.createDirectories(base.resolve("state"));
        Path endit = base.resolve("endit");
        this.dir = RequestDirectory.create(endit);
    }

    public static void main(String[] args) throws Exception {
        int n = 100_000;
        int drives = 10;
        int cartridges = 100;
        long size = 100_000;
        double speed = 10_000;
        Path root = Path.of("/tmp");
        boolean keep = false;
        boolean completion = true;
        int histogram = 0;
        String label = "";
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--requests": n = Integer.parseInt(args[++i]); break;
                case "--dir": root = Path.of(args[++i]); break;
                case "--drives": drives = Integer.parseInt(args[++i]); break;
                case "--cartridges": cartridges = Integer.parseInt(args[++i]); break;
                case "--file-size": size = Long.parseLong(args[++i]); break;
                case "--speed": speed = Double.parseDouble(args[++i]); break;
                case "--keep": keep = true; break;
                case "--no-completion": completion = false; break;
                case "--histogram": histogram = Integer.parseInt(args[++i]); break;
                case "--label": label = args[++i]; break;
                default: throw new IllegalArgumentException("unknown argument " + args[i] + "; known: --requests N "
                        + "--dir DIR --drives D --cartridges C --file-size BYTES --speed S --keep --no-completion "
                        + "--histogram K --label TEXT");
            }
        }
        Path base = Files.createTempDirectory(Files.createDirectories(root), "tapeq-bench-daemon-");
        try {
            new DaemonScaleBenchmark(n, drives, cartridges, size, speed, base, histogram, label).run(completion);
        } finally {
            if (keep) {
                System.out.println("kept " + base);
            } else {
                ScratchTree.delete(base);
            }
        }
    }

    /** Runs the phases; without {@code completion} it stops after the restart (a million completions take long). */
    private void run(boolean completion) throws Exception {
        heap.start();
        System.out.printf(Locale.ROOT, "tapeq daemon scale benchmark: %,d stage requests of %,d bytes, %d cartridges,"
                        + " %d drives, tape time x%.0f%n  directory %s (%s), max heap %,d MB, %d cpus%n", n, size,
                cartridges, drives, speed, base, Files.getFileStore(base).type(),
                Runtime.getRuntime().maxMemory() >> 20, Runtime.getRuntime().availableProcessors());

        long t0 = System.nanoTime();
        SizeOnlyTapes.write(state.resolve("catalog.db"), state.resolve("simlib"), drives, SizeOnlyTapes.MEDIA,
                cartridges, n, size);
        System.out.printf(Locale.ROOT, "prepared: %,d files written through the scheduler to a size-only library in "
                + "%.1f s%n", n, seconds(System.nanoTime() - t0));
        DaemonConfig config = DaemonConfig.load(writeConfig());

        // Intake.
        Daemon daemon = Daemon.start(config);
        List<String> driveIds = drivesDown(daemon);
        long emptyHeap = heap.afterGc();
        System.out.printf(Locale.ROOT, "heap: %,d MB after a full GC with the daemon started and nothing queued%n",
                emptyHeap >> 20);
        StatusProbe intakeStatus = new StatusProbe(daemon).start();
        heap.reset();
        long gc0 = gcMillis();
        CpuShare cpu = new CpuShare();
        long parentPid = ProcessHandle.current().pid();
        long firstWrite = System.nanoTime();
        long nextProgress = firstWrite + PROGRESS_NANOS;
        for (int i = 0; i < n; i++) {
            String pnfsid = SizeOnlyTapes.pnfsid(i);
            Request r = SizeOnlyTapes.stageRequest(i, cartridges, size, parentPid);
            AtomicFiles.write(dir.requestFile(pnfsid), RequestCodec.toBytes(r));
            if ((i & 1023) == 0 && System.nanoTime() > nextProgress) {
                nextProgress += PROGRESS_NANOS;
                progress("intake", daemon, firstWrite, i + 1);
            }
        }
        long allWritten = System.nanoTime();
        long intakeDone = awaitQueued(daemon, "intake", firstWrite);
        intakeStatus.stop();
        long intakePeak = heap.peak();
        long intakeGc = gcMillis() - gc0;
        String intakeCpu = cpu.describe();
        long liveQueued = heap.afterGc();
        System.out.printf(Locale.ROOT, "intake: %,d request files written in %.1f s (%,.0f /s); all queued %.1f s "
                        + "after the first was written (%,.0f /s), %.1f s after the last%n", n,
                seconds(allWritten - firstWrite), n / seconds(allWritten - firstWrite), seconds(intakeDone - firstWrite),
                n / seconds(intakeDone - firstWrite), seconds(intakeDone - allWritten));
        System.out.printf(Locale.ROOT, "heap: %,d MB after a full GC with %,d queued; peak used during intake %,d MB; "
                + "%.1f s in GC during intake%n", liveQueued >> 20, n, intakePeak >> 20, intakeGc / 1e3);
        System.out.println("  cpu during intake: " + intakeCpu);
        System.out.printf(Locale.ROOT, "  bytes per queued request: %,.0f (heap after GC with %,d queued, less the "
                + "heap with none)%n", (liveQueued - emptyHeap) / (double) n, n);
        System.out.println("  status during intake: " + intakeStatus.describe());
        long intakeStatusMax = intakeStatus.max();
        intakeStatus = null; // it holds the daemon, which a restart after kill -9 does not have

        // Restart.
        daemon.close();
        daemon = null; // a restart after kill -9 starts with an empty heap, not the old daemon's million requests
        long closedHeap = heap.afterGc();
        System.out.printf(Locale.ROOT, "heap: %,d MB after the daemon was closed and a full GC%n", closedHeap >> 20);
        heap.reset();
        gc0 = gcMillis();
        cpu = new CpuShare();
        long restartStart = System.nanoTime();
        daemon = Daemon.start(config);
        long started = System.nanoTime();
        StatusProbe restartStatus = new StatusProbe(daemon).start();
        long restartDone = awaitQueued(daemon, "restart", restartStart);
        restartStatus.stop();
        long restartPeak = heap.peak();
        String restartCpu = cpu.describe();
        System.out.printf(Locale.ROOT, "restart: Daemon.start returned after %.1f s (every request file read and "
                        + "handed to the scheduler), all %,d queued after %.1f s (%,.0f files read, parsed and queued "
                        + "/s); peak heap used %,d MB; %.1f s in GC%n", seconds(started - restartStart), n,
                seconds(restartDone - restartStart), n / seconds(restartDone - restartStart), restartPeak >> 20,
                (gcMillis() - gc0) / 1e3);
        System.out.println("  cpu during restart: " + restartCpu);
        System.out.println("  status from Daemon.start's return until all were queued: " + restartStatus.describe());
        long liveRestarted = heap.afterGc();
        StatusProbe quietStatus = new StatusProbe(daemon).run(5);
        System.out.printf(Locale.ROOT, "restarted: heap %,d MB after a full GC with %,d queued (%,.0f bytes per "
                + "request); status with the daemon quiet: %s%n", liveRestarted >> 20, n,
                (liveRestarted - emptyHeap) / (double) n, quietStatus.describe());
        if (histogram > 0) {
            System.out.print("live heap by class with " + n + " queued (after the restart):\n"
                    + HeapHistogram.top(histogram));
        }
        if (!driveIds.equals(downDrives(daemon))) {
            throw new IllegalStateException("the drives did not stay down over the restart: " + downDrives(daemon));
        }

        String result = String.format(Locale.ROOT, "{\"label\": \"%s\", \"requests\": %d, \"intake_s\": %.1f, "
                        + "\"restart_s\": %.1f, \"heap_empty_mb\": %d, \"heap_queued_mb\": %d, "
                        + "\"bytes_per_request\": %.0f, \"restart_peak_mb\": %d, \"status_quiet_median_ms\": %d, "
                        + "\"status_quiet_max_ms\": %d, \"status_intake_max_ms\": %d, "
                        + "\"status_restart_max_ms\": %d, \"bytes_per_request_restarted\": %.0f}", label.replace("\"", "'"),
                n, seconds(intakeDone - firstWrite), seconds(restartDone - restartStart), emptyHeap >> 20,
                liveQueued >> 20, (liveQueued - emptyHeap) / (double) n, restartPeak >> 20, quietStatus.median(),
                quietStatus.max(), intakeStatusMax, restartStatus.max(), (liveRestarted - emptyHeap) / (double) n);
        if (!completion) {
            daemon.close();
            System.out.println("completion: not run (--no-completion)");
            System.out.println(result);
            return;
        }

        // Completion.
        heap.reset();
        gc0 = gcMillis();
        cpu = new CpuShare();
        PoolSide pool = new PoolSide(dir);
        pool.start();
        long upAt = System.nanoTime();
        for (String d : driveIds) {
            daemon.scheduler().driveUp(d).get();
        }
        nextProgress = upAt + PROGRESS_NANOS;
        while (pool.taken() < n) {
            Thread.sleep(POLL_MILLIS);
            checkFailures(daemon);
            if (System.nanoTime() > nextProgress) {
                nextProgress += PROGRESS_NANOS;
                progress("completion", daemon, upAt, pool.taken());
            }
        }
        long lastTaken = pool.lastTakenNanos();
        pool.stop();
        long completionPeak = heap.peak();
        String completionCpu = cpu.describe();
        double completionSeconds = seconds(lastTaken - upAt);
        System.out.printf(Locale.ROOT, "completion: %,d files delivered into in/ and taken in %.1f s after the drives "
                        + "came up: %,.0f completions/s (first taken after %.1f s; %,.0f /s from then on); peak heap "
                        + "used %,d MB; %.1f s in GC%n", n, completionSeconds, n / completionSeconds,
                seconds(pool.firstTakenNanos() - upAt), (n - 1) / seconds(lastTaken - pool.firstTakenNanos()),
                completionPeak >> 20, (gcMillis() - gc0) / 1e3);
        System.out.println("  cpu during completion: " + completionCpu);
        SimStats tape = ((SimulatedLibrary) daemon.library()).stats();
        // Per-drive busy times are on the loop's clock, which includes its delays multiplied by the speed: they
        // are not tape time, so only the operation counts are printed.
        System.out.print("simulated library during completion:\n"
                + tape.format().lines().limit(3).map(l -> "  " + l + "\n").reduce("", String::concat));
        SchedulerStatus s = daemon.scheduler().status(0).get();
        System.out.println("scheduler counters: " + pick(s.counters(), "stages_submitted", "stages_done",
                "stages_failed", "stages_cancelled", "mounts", "remounts"));
        for (BridgeStatus b : daemon.status().directories()) {
            System.out.println("directory " + b.name() + ": requests " + b.requests() + ", in scheduler "
                    + b.inScheduler() + ", rejected " + b.rejected());
        }
        daemon.close();

        System.out.println();
        System.out.println("| requests | intake s | intake /s | restart s | restart /s | completions/s | heap after GC, "
                + "N queued | peak heap used |");
        System.out.println("| --- | --- | --- | --- | --- | --- | --- | --- |");
        System.out.printf(Locale.ROOT, "| %,d | %.1f | %,.0f | %.1f | %,.0f | %,.0f | %,d MB | %,d MB |%n", n,
                seconds(intakeDone - firstWrite), n / seconds(intakeDone - firstWrite),
                seconds(restartDone - restartStart), n / seconds(restartDone - restartStart), n / completionSeconds,
                liveQueued >> 20, Math.max(intakePeak, Math.max(restartPeak, completionPeak)) >> 20);
        System.out.println(result);
    }

    private Path writeConfig() throws IOException {
        return BenchDaemonConfig.write(base, dir.base(), state, speed, drives, cartridges);
    }

    /** Takes every drive down; returns their ids. */
    private static List<String> drivesDown(Daemon daemon) throws Exception {
        List<String> ids = daemon.scheduler().status(0).get().drives().stream()
                .map(SchedulerStatus.DriveStatus::id).sorted().toList();
        for (String d : ids) {
            daemon.scheduler().driveDown(d, "benchmark: hold the requests queued").get();
        }
        return ids;
    }

    private static List<String> downDrives(Daemon daemon) throws Exception {
        return daemon.scheduler().status(0).get().drives().stream().filter(d -> d.state().equals("down"))
                .map(SchedulerStatus.DriveStatus::id).sorted().toList();
    }

    /** Polls until the scheduler counts N stages submitted; returns that moment. */
    private long awaitQueued(Daemon daemon, String phase, long since) throws Exception {
        long nextProgress = System.nanoTime() + PROGRESS_NANOS;
        while (true) {
            long queued = counter(daemon, "stages_submitted");
            long now = System.nanoTime();
            if (queued >= n) {
                return now;
            }
            checkFailures(daemon);
            if (now > nextProgress) {
                nextProgress += PROGRESS_NANOS;
                progress(phase, daemon, since, -1);
            }
            Thread.sleep(POLL_MILLIS);
        }
    }

    private static void checkFailures(Daemon daemon) throws Exception {
        long failed = counter(daemon, "stages_failed");
        if (failed > 0) {
            throw new IllegalStateException(failed + " stage(s) failed; see the error files in request/");
        }
    }

    private static long counter(Daemon daemon, String name) throws Exception {
        return daemon.scheduler().status(0).get().counters().getOrDefault(name, 0L);
    }

    private void progress(String phase, Daemon daemon, long since, long count) throws Exception {
        Map<String, Long> c = daemon.scheduler().status(0).get().counters();
        System.out.printf(Locale.ROOT, "  %s %5.1f s: %s submitted %,d done %,d, heap used %,d MB%n", phase,
                seconds(System.nanoTime() - since), count < 0 ? "" : String.format(Locale.ROOT, "%,d so far,",
                        count), c.getOrDefault("stages_submitted", 0L), c.getOrDefault("stages_done", 0L),
                heap.used() >> 20);
    }

    /** Milliseconds the collectors have spent so far (the JVM's own accounting). */
    private static long gcMillis() {
        return ManagementFactory.getGarbageCollectorMXBeans().stream()
                .mapToLong(GarbageCollectorMXBean::getCollectionTime).sum();
    }

    private static String pick(Map<String, Long> m, String... keys) {
        StringBuilder b = new StringBuilder();
        for (String k : keys) {
            b.append(b.length() == 0 ? "" : ", ").append(k).append(' ').append(m.getOrDefault(k, 0L));
        }
        return b.toString();
    }

    private static double seconds(long nanos) {
        return nanos / 1e9;
    }


    /** The highest heap use seen since the last reset, sampled every 20 ms. */
    private static final class HeapPeak {
        private volatile long peak;

        void start() {
            Thread t = new Thread(() -> {
                while (true) {
                    long u = used();
                    if (u > peak) {
                        peak = u;
                    }
                    try {
                        Thread.sleep(20);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "bench-heap-sampler");
            t.setDaemon(true);
            t.start();
        }

        long used() {
            return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        }

        long peak() {
            return Math.max(peak, used());
        }

        void reset() {
            peak = 0;
        }

        /** Used heap after full GCs (the least of four). */
        long afterGc() throws InterruptedException {
            long min = Long.MAX_VALUE;
            for (int i = 0; i < 4; i++) {
                System.gc();
                Thread.sleep(100);
                min = Math.min(min, used());
            }
            return min;
        }
    }
}
