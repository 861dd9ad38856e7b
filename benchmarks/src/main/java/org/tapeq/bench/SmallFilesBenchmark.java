package org.tapeq.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Queue;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.zip.Adler32;

import org.tapeq.daemon.Daemon;
import org.tapeq.daemon.rehearsal.ScratchTree;
import org.tapeq.daemon.config.DaemonConfig;
import org.tapeq.daemon.rehearsal.SizeOnlyTapes;
import org.tapeq.protocol.AtomicFiles;
import org.tapeq.protocol.Request;
import org.tapeq.protocol.RequestCodec;
import org.tapeq.protocol.RequestDirectory;

/**
 * Bulk small files through a real tapeq daemon, end to end: N stage requests, then N flush requests, written as
 * ENDIT's provider writes them, and the time from the first request file written until the last answer was
 * visible in the directory; then the latency of single requests on the idle daemon. Not a test: it prints what it
 * measured, and its last line is every figure as one JSON object ({@code benchmarks/small-files-compare.sh}).
 *
 * <p>Design notes.
 * <ol>
 * <li><b>Library.</b> The simulated library, size-only, at a speed that makes tape time vanish ({@code --speed},
 *     default a million times real time): what is measured is the daemon's own path, request file to answer.
 *     {@link SizeOnlyTapes} first writes the N stage files (2-8 KB each, sizes from a fixed seed) through the
 *     real scheduler, so the catalog holds them; not measured.</li>
 * <li><b>Writing the requests.</b> So that the figure is the daemon's and not the writers': the N request files
 *     (and, for flushes, the N hard links to the replicas) are written beforehand into {@code prepared/}, a
 *     sibling of the request directory on the same filesystem; the measured part only renames each into
 *     {@code request/} (and the link into {@code out/}, after its request file), as a provider's atomic write
 *     ends, by {@code --writers} threads (default 4). {@code --write-in-place} writes them during the measured
 *     part instead (create, write, rename; then the link), as the earlier version of this benchmark did.</li>
 * <li><b>Stage.</b> One thread plays the pool's eyes: told by inotify of each file renamed into {@code in/} (on an
 *     overflow, or with nothing new for a while, it lists {@code in/} once), it notes the time each delivered file
 *     was seen and hands it to {@value #TAKERS} more threads, the pool's hands, which remove the request file and the
 *     file, as a pool takes a staged file. Stages/s: N / (first request renamed until the last delivered file was
 *     seen). The removals still load the machine, but a file seen waits for none of them: when one thread both
 *     looked and removed, a delivered file was seen only after the removals of every file seen before it (two
 *     unlinks each), and the figure was the pool thread's pace more than the daemon's.</li>
 * <li><b>Flush.</b> The N replicas (random bytes, 2-8 KB) are written into a pool directory beforehand. The
 *     pool thread is told of each link removed from {@code out/} by inotify ({@link java.nio.file.WatchService};
 *     on an overflow it lists {@code out/} once) and takes each link written and then gone as the answer (it
 *     removes the request file): listing {@code out/} in a loop costs as much as the daemon's work at 100 000
 *     files. Flushes/s as for stages.</li>
 * <li><b>Idle latency.</b> With the daemon quiet, one request at a time (a stage of a file on tape, then a new
 *     flush), polled every 0.1 ms until the answer shows; 50 ms between requests. Median and maximum.</li>
 * <li><b>Same code for old and new.</b> The benchmark uses only the daemon's public start, status and the
 *     directory; the compare script runs this class from the new jar against either revision's daemon.</li>
 * </ol>
 */
public final class SmallFilesBenchmark {

    private static final long PROGRESS_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final long ERROR_CHECK_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long ANSWER_TIMEOUT_NANOS = TimeUnit.MINUTES.toNanos(10);
    /** Threads that remove what the pool thread saw answered (request files, staged files). */
    private static final int TAKERS = 2;
    private static final int MIN_SIZE = 2048;
    private static final int MAX_SIZE = 8192;

    private final int n;
    private final int drives;
    private final int cartridges;
    private final double speed;
    private final int samples;
    /** Threads writing the request files (a pool has many). */
    private final int writerCount;
    private final String label;
    /** Request files written during the measured part, not renamed from {@link #prepared}. */
    private final boolean inPlace;
    private final Path base;
    /** Request files ({@code prepared/request}) and links ({@code prepared/out}) written before the clock starts. */
    private final Path prepared;
    private final Path state;
    private final Path pool;
    private final RequestDirectory dir;
    private final long[] sizes;
    /** adler32 of each replica (by file index), as dCache knows it. */
    private final String[] checksums;

    private SmallFilesBenchmark(int n, int drives, int cartridges, double speed, int samples, int writers,
                                String label, boolean inPlace, Path base) throws IOException {
        this.n = n;
        this.writerCount = writers;
        this.drives = drives;
        this.cartridges = cartridges;
        this.speed = speed;
        this.samples = samples;
        this.label = label;
        this.inPlace = inPlace;
        this.base = base;
        this.prepared = base.resolve("prepared");
        this.state = Files.createDirectories(base.resolve("state"));
        this.pool = Files.createDirectories(base.resolve("pool"));
        this.dir = RequestDirectory.create(base.resolve("endit"));
        Random random = new Random(SizeOnlyTapes.SEED);
        this.sizes = new long[2 * (n + samples)];
        for (int i = 0; i < sizes.length; i++) {
            sizes[i] = MIN_SIZE + random.nextInt(MAX_SIZE - MIN_SIZE + 1);
        }
        this.checksums = new String[sizes.length];
    }

    public static void main(String[] args) throws Exception {
        int n = 10_000;
        int drives = 4;
        int cartridges = 4;
        double speed = 1_000_000;
        int samples = 21;
        int writers = 4;
        Path root = Path.of("/tmp");
        boolean keep = false;
        boolean inPlace = false;
        String label = "";
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--files": n = Integer.parseInt(args[++i]); break;
                case "--drives": drives = Integer.parseInt(args[++i]); break;
                case "--cartridges": cartridges = Integer.parseInt(args[++i]); break;
                case "--speed": speed = Double.parseDouble(args[++i]); break;
                case "--samples": samples = Integer.parseInt(args[++i]); break;
                case "--writers": writers = Integer.parseInt(args[++i]); break;
                case "--dir": root = Path.of(args[++i]); break;
                case "--keep": keep = true; break;
                case "--write-in-place": inPlace = true; break;
                case "--label": label = args[++i]; break;
                default: throw new IllegalArgumentException("unknown argument " + args[i] + "; known: --files N "
                        + "--drives D --cartridges C --speed S --samples K --writers W --write-in-place --dir DIR --keep --label TEXT");
            }
        }
        Path base = Files.createTempDirectory(Files.createDirectories(root), "tapeq-bench-small-");
        try {
            new SmallFilesBenchmark(n, drives, cartridges, speed, samples, writers, label, inPlace, base).run();
        } finally {
            if (keep) {
                System.out.println("kept " + base);
            } else {
                ScratchTree.delete(base);
            }
        }
    }

    private void run() throws Exception {
        System.out.printf(Locale.ROOT, "tapeq small-files benchmark: %,d stages and %,d flushes of %d-%d bytes, "
                        + "ENDIT request files (%d writers, %s), %d drives, %d cartridges, tape time x%.0f%n"
                        + "  directory %s (%s), %d cpus%n",
                n, n, MIN_SIZE, MAX_SIZE, writerCount, inPlace ? "written in place" : "prepared, renamed into place",
                drives, cartridges, speed, base, Files.getFileStore(base).type(),
                Runtime.getRuntime().availableProcessors());
        long t0 = System.nanoTime();
        List<String> labels = new ArrayList<>();
        for (int c = 0; c < cartridges; c++) {
            labels.add(SizeOnlyTapes.storageClass(c, cartridges));
        }
        SizeOnlyTapes.write(state.resolve("catalog.db"), state.resolve("simlib"), drives, SizeOnlyTapes.MEDIA, labels,
                java.util.Map.of(), n + samples, i -> new SizeOnlyTapes.TapeFile(SizeOnlyTapes.pnfsid(i), sizes[i],
                        SizeOnlyTapes.storageClass(i, cartridges), SizeOnlyTapes.path(i, cartridges), "bench", null));
        for (int i = 0; i < n + samples; i++) {
            int f = flushIndex(i);
            byte[] data = new byte[(int) sizes[f]];
            new Random(f).nextBytes(data);
            Files.write(pool.resolve(SizeOnlyTapes.pnfsid(f)), data);
            Adler32 a = new Adler32();
            a.update(data);
            checksums[f] = String.format(Locale.ROOT, "%08x", a.getValue());
        }
        System.out.printf(Locale.ROOT, "prepared in %.1f s: %,d files on tape, %,d replicas in the pool%n",
                seconds(System.nanoTime() - t0), n + samples, n + samples);

        try (Daemon daemon = Daemon.start(DaemonConfig.load(writeConfig()))) {
            Bulk stage = bulk(daemon, true);
            CatalogCommits beforeFlush = CatalogCommits.of(daemon);
            Bulk flush = bulk(daemon, false);
            CatalogCommits commits = CatalogCommits.of(daemon).since(beforeFlush);
            System.out.printf(Locale.ROOT, "flush: %,d aggregates recorded in %,d catalog commit transactions%n",
                    commits.aggregates(), commits.transactions());
            Latency stageIdle = idle(daemon, true);
            Latency flushIdle = idle(daemon, false);
            System.out.println();
            System.out.println("| files | stages/s | flushes/s | idle stage median ms | idle flush median ms |");
            System.out.println("| --- | --- | --- | --- | --- |");
            System.out.printf(Locale.ROOT, "| %,d | %,.0f | %,.0f | %.1f | %.1f |%n", n, stage.rate(), flush.rate(),
                    stageIdle.median(), flushIdle.median());
            System.out.printf(Locale.ROOT, "{\"label\": \"%s\", \"files\": %d, \"stage_per_s\": %.0f, "
                            + "\"stage_s\": %.2f, \"flush_per_s\": %.0f, \"flush_s\": %.2f, "
                            + "\"idle_stage_median_ms\": %.2f, \"idle_stage_max_ms\": %.2f, "
                            + "\"idle_flush_median_ms\": %.2f, \"idle_flush_max_ms\": %.2f, "
                            + "\"stage_wait_median_ms\": %.1f, \"stage_wait_p90_ms\": %.1f, "
                            + "\"flush_wait_median_ms\": %.1f, \"flush_wait_p90_ms\": %.1f, "
                            + "\"stage_daemon_cpu_ms\": %.3f, \"flush_daemon_cpu_ms\": %.3f, "
                            + "\"flush_aggregates\": %d, \"flush_transactions\": %d, "
                            + "\"stage_cpu\": \"%s\", \"flush_cpu\": \"%s\"}%n", label.replace("\"", "'"), n,
                    stage.rate(), stage.seconds, flush.rate(), flush.seconds, stageIdle.median(), stageIdle.max(),
                    flushIdle.median(), flushIdle.max(), stage.medianMs, stage.p90Ms, flush.medianMs, flush.p90Ms,
                    stage.daemonMsPer, flush.daemonMsPer, commits.aggregates(), commits.transactions(), stage.cpu,
                    flush.cpu);
        }
    }

    /** Flush file {@code i} has index {@code n + samples + i} (stage files are 0 .. n + samples - 1). */
    private int flushIndex(int i) {
        return n + samples + i;
    }

    private static double percentile(double[] sorted, double q) {
        return sorted[Math.min(sorted.length - 1, (int) (q * sorted.length))];
    }

    /** One bulk phase: its time, CPU, the daemon's CPU per request, and each request's wait (ms). */
    private record Bulk(double seconds, int count, String cpu, double daemonMsPer, double medianMs, double p90Ms) {
        double rate() {
            return count / seconds;
        }
    }

    /** N requests written at once; until every answer was seen. */
    private Bulk bulk(Daemon daemon, boolean stage) throws Exception {
        String kind = stage ? "stage" : "flush";
        String[] ids = new String[n];
        for (int i = 0; i < n; i++) {
            ids[i] = SizeOnlyTapes.pnfsid(stage ? i : flushIndex(i));
        }
        if (!inPlace) {
            long t0 = System.nanoTime();
            prepare(stage);
            System.out.printf(Locale.ROOT, "%s: %,d request files prepared in %.1f s (not measured)%n", kind, n,
                    seconds(System.nanoTime() - t0));
        }
        Taker taker = new Taker(stage, ids);
        CpuShare cpu = new CpuShare();
        Thread thread = new Thread(taker, "bench-pool-" + kind);
        thread.setDaemon(true);
        long first = System.nanoTime();
        thread.start();
        List<Thread> writers = new ArrayList<>();
        List<Throwable> writeFailures = Collections.synchronizedList(new ArrayList<>());
        for (int w = 0; w < writerCount; w++) {
            int first0 = w;
            Thread t = new Thread(() -> {
                try {
                    for (int i = first0; i < n; i += writerCount) {
                        int f = stage ? i : flushIndex(i);
                        if (inPlace) {
                            write(stage, f);
                        } else {
                            put(stage, f);
                        }
                        taker.written(i);
                    }
                } catch (IOException | RuntimeException e) {
                    writeFailures.add(e);
                }
            }, "bench-writer-" + w);
            t.start();
            writers.add(t);
        }
        for (Thread t : writers) {
            t.join();
        }
        if (!writeFailures.isEmpty()) {
            throw new IllegalStateException("writing the requests failed", writeFailures.get(0));
        }
        long written = System.nanoTime();
        long nextProgress = first + PROGRESS_NANOS;
        long nextErrorCheck = first + ERROR_CHECK_NANOS;
        while (taker.taken < n) {
            Thread.sleep(5);
            long now = System.nanoTime();
            if (taker.failure != null) {
                throw new IllegalStateException("the pool thread failed", taker.failure);
            }
            if (now > nextErrorCheck) {
                // Once a second, not in the loop: a status asked 200 times a second is work for the daemon's loop.
                nextErrorCheck = now + ERROR_CHECK_NANOS;
                checkFailures(daemon, kind);
                checkErrorFiles();
            }
            if (now > nextProgress) {
                nextProgress += PROGRESS_NANOS;
                System.out.printf(Locale.ROOT, "  %s %5.1f s: %,d answered%n", kind, seconds(now - first),
                        taker.taken);
            }
            if (now - first > ANSWER_TIMEOUT_NANOS) {
                throw new IllegalStateException(kind + ": only " + taker.taken + " of " + n + " answered");
            }
        }
        taker.stopped = true;
        thread.join();
        taker.close();
        taker.awaitRemovals();
        checkFailures(daemon, kind);
        double s = seconds(taker.last - first);
        String used = cpu.describe();
        double daemonMsPer = cpu.daemonMillis() / n;
        double[] waits = taker.latencies();
        Arrays.sort(waits);
        System.out.printf(Locale.ROOT, "%s: %,d requests written in %.2f s; all answered %.2f s after the first was "
                + "written: %,.0f /s (%s; the daemon's threads %.3f ms CPU per request)%n", kind, n,
                seconds(written - first), s, n / s, used, daemonMsPer);
        System.out.printf(Locale.ROOT, "%s: the daemon's threads: %s%n", kind, cpu.daemonThreadsDescribed());
        System.out.printf(Locale.ROOT, "%s: written/answered by then: %s%n", kind, taker.timeline(first, taker.last));
        System.out.printf(Locale.ROOT, "%s: each request written to answered: median %.1f ms, 90 %% %.1f ms, max %.1f ms"
                + "%n", kind, percentile(waits, 0.5), percentile(waits, 0.9), waits[waits.length - 1]);
        return new Bulk(s, n, used, daemonMsPer, percentile(waits, 0.5), percentile(waits, 0.9));
    }

    /** A request as the ENDIT provider writes it (a flush: request file, then the link into out/). */
    private void write(boolean stage, int i) throws IOException {
        String pnfsid = SizeOnlyTapes.pnfsid(i);
        AtomicFiles.write(dir.requestFile(pnfsid), requestBytes(stage, i));
        if (!stage) {
            Files.createLink(dir.outLink(pnfsid), pool.resolve(pnfsid));
        }
    }

    private byte[] requestBytes(boolean stage, int i) {
        long now = System.currentTimeMillis() / 1000;
        String storageClass = SizeOnlyTapes.storageClass(i, cartridges);
        String path = SizeOnlyTapes.path(i, cartridges);
        return RequestCodec.toBytes(stage
                ? Request.stage(sizes[i], now, storageClass, path, ProcessHandle.current().pid(), null, null, null)
                : Request.flush(sizes[i], now, storageClass, path, "adler32", checksums[i], null));
    }

    /** Writes the N request files (and links) of one phase into {@link #prepared}, before the clock starts. */
    private void prepare(boolean stage) throws IOException {
        Path requests = Files.createDirectories(prepared.resolve(RequestDirectory.REQUEST));
        Path links = Files.createDirectories(prepared.resolve(RequestDirectory.OUT));
        for (int k = 0; k < n; k++) {
            int i = stage ? k : flushIndex(k);
            String pnfsid = SizeOnlyTapes.pnfsid(i);
            Files.write(requests.resolve(pnfsid), requestBytes(stage, i));
            if (!stage) {
                Files.createLink(links.resolve(pnfsid), pool.resolve(pnfsid));
            }
        }
    }

    /**
     * The measured part of a prepared request: its file renamed into request/ (the last step of a provider's
     * atomic write), then a flush's link into out/.
     */
    private void put(boolean stage, int i) throws IOException {
        String pnfsid = SizeOnlyTapes.pnfsid(i);
        Files.move(prepared.resolve(RequestDirectory.REQUEST).resolve(pnfsid), dir.requestFile(pnfsid),
                StandardCopyOption.ATOMIC_MOVE);
        if (!stage) {
            Files.move(prepared.resolve(RequestDirectory.OUT).resolve(pnfsid), dir.outLink(pnfsid),
                    StandardCopyOption.ATOMIC_MOVE);
        }
    }

    private record Latency(double[] millis) {
        double median() {
            double[] s = millis.clone();
            Arrays.sort(s);
            return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
        }

        double max() {
            return Arrays.stream(millis).max().orElse(0);
        }
    }

    /** Single requests on the idle daemon, one at a time. */
    private Latency idle(Daemon daemon, boolean stage) throws Exception {
        String kind = stage ? "stage" : "flush";
        double[] ms = new double[samples];
        for (int k = 0; k < samples; k++) {
            Thread.sleep(50);
            int i = stage ? n + k : flushIndex(n + k);
            String pnfsid = SizeOnlyTapes.pnfsid(i);
            long t0 = System.nanoTime();
            write(stage, i);
            Path answer = stage ? dir.inFile(pnfsid) : dir.outLink(pnfsid);
            while (Files.exists(answer) != stage) {
                if (System.nanoTime() - t0 > ANSWER_TIMEOUT_NANOS) {
                    throw new IllegalStateException("idle " + kind + " of " + pnfsid + " not answered");
                }
                checkFailures(daemon, kind);
                TimeUnit.MICROSECONDS.sleep(100);
            }
            ms[k] = (System.nanoTime() - t0) / 1e6;
            Files.deleteIfExists(dir.requestFile(pnfsid));
            if (stage) {
                Files.delete(answer);
            }
        }
        Latency l = new Latency(ms);
        System.out.printf(Locale.ROOT, "idle %s latency: median %.1f ms, max %.1f ms over %d requests%n", kind,
                l.median(), l.max(), samples);
        return l;
    }

    /** Fails on the first error file in request/: every request here should succeed. */
    private void checkErrorFiles() throws IOException {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir.requestDir(), "*.err")) {
            for (Path p : files) {
                throw new IllegalStateException("the daemon answered with an error: " + p + ": "
                        + Files.readString(p));
            }
        }
    }

    private static void checkFailures(Daemon daemon, String kind) throws Exception {
        String key = kind.equals("stage") ? "stages_failed" : "flushes_failed";
        long failed = daemon.scheduler().status(0).get().counters().getOrDefault(key, 0L);
        if (failed > 0) {
            throw new IllegalStateException(failed + " " + kind + "(s) failed; see the error files in request/");
        }
    }

    /**
     * The pool's side, told by inotify ({@link WatchService}) of each file renamed into {@code in/} (stages: each
     * delivered file is an answer; the request file and the file are then removed) or each link removed from
     * {@code out/} (flushes: a link written and then gone is an answer; the request file is then removed). After an
     * overflow, or when nothing was answered for a while, it lists the directory once. Listing it in a loop instead
     * costs as much as the daemon's own work at 100 000 files. This thread only looks and notes the time; the
     * removals run on {@value #TAKERS} other threads, so that an answer is seen when it shows, not after the
     * removals of the answers before it.
     */
    private final class Taker implements Runnable, AutoCloseable {
        /** Without an answer for this long while requests are pending, the directory is listed once. */
        private static final long RELIST_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
        private final boolean stage;
        private final String[] ids;
        private final java.util.Map<String, Integer> index = new java.util.HashMap<>();
        /** When each request's files were all written (System.nanoTime), by index. */
        private final AtomicLongArray writtenAt;
        /** From written to answered, ms, by index. */
        private final double[] waits;
        /** When each was answered (System.nanoTime), by index. */
        private final long[] answeredAt;
        /** Indexes of requests whose files are all written (a flush's link gone before is not an answer). */
        private final Queue<Integer> written = new ConcurrentLinkedQueue<>();
        /** Written, not yet answered. */
        private final Set<String> pending = new HashSet<>();
        /** Names seen answered before their writer said they were written. */
        private final Set<String> early = new HashSet<>();
        private final WatchService watch;
        private final Path watched;
        /** The pool's hands: remove what was seen answered, off the thread that looks. */
        private final ExecutorService removers = Executors.newFixedThreadPool(TAKERS, r -> {
            Thread t = new Thread(r, "bench-pool-take");
            t.setDaemon(true);
            return t;
        });
        private final AtomicReference<Throwable> removeFailure = new AtomicReference<>();
        private volatile boolean stopped;
        private volatile int taken;
        private volatile long last;
        private volatile Throwable failure;
        private long lastProgress = System.nanoTime();

        Taker(boolean stage, String[] ids) throws IOException {
            this.stage = stage;
            this.ids = ids;
            for (int k = 0; k < ids.length; k++) {
                index.put(ids[k], k);
            }
            this.writtenAt = new AtomicLongArray(ids.length);
            this.waits = new double[ids.length];
            this.answeredAt = new long[ids.length];
            this.watched = stage ? dir.inDir() : dir.outDir();
            this.watch = watched.getFileSystem().newWatchService();
            watched.register(watch, stage ? StandardWatchEventKinds.ENTRY_CREATE
                    : StandardWatchEventKinds.ENTRY_DELETE);
        }

        /** On a writer's thread: request {@code k}'s files are all written. */
        void written(int k) {
            writtenAt.set(k, System.nanoTime());
            written.add(k);
        }

        double[] latencies() {
            return waits.clone();
        }

        /** Requests written and answered by each tenth of the phase: "0.6 s 1000/200, 1.2 s ...". */
        String timeline(long first, long end) {
            StringBuilder b = new StringBuilder();
            for (int slice = 1; slice <= 10; slice++) {
                long t = first + (end - first) * slice / 10;
                int w = 0;
                int a = 0;
                for (int k = 0; k < ids.length; k++) {
                    w += writtenAt.get(k) != 0 && writtenAt.get(k) <= t ? 1 : 0;
                    a += answeredAt[k] != 0 && answeredAt[k] <= t ? 1 : 0;
                }
                b.append(slice == 1 ? "" : ", ").append(String.format(Locale.ROOT, "%.1f s %d/%d", seconds(t - first),
                        w, a));
            }
            return b.toString();
        }

        @Override
        public void close() throws IOException {
            watch.close();
        }

        /** Waits until every answer seen was taken (its files removed); fails if a removal failed. */
        void awaitRemovals() throws InterruptedException {
            removers.shutdown();
            if (!removers.awaitTermination(10, TimeUnit.MINUTES)) {
                throw new IllegalStateException("the pool's removals did not end within 10 minutes");
            }
            if (removeFailure.get() != null) {
                throw new IllegalStateException("the pool could not take an answer", removeFailure.get());
            }
        }

        @Override
        public void run() {
            try {
                while (!stopped && taken < ids.length) {
                    if (take() == 0) {
                        Thread.sleep(1);
                    }
                }
            } catch (Throwable e) {
                failure = e;
            }
        }

        private int take() throws IOException {
            int found = 0;
            for (Integer k = written.poll(); k != null; k = written.poll()) {
                String id = ids[k];
                if (early.remove(id)) {
                    found += answer(id, System.nanoTime());
                } else {
                    pending.add(id);
                }
            }
            boolean overflow = false;
            for (WatchKey key = watch.poll(); key != null; key = watch.poll()) {
                long now = System.nanoTime();
                for (WatchEvent<?> e : key.pollEvents()) {
                    if (e.kind() == StandardWatchEventKinds.OVERFLOW) {
                        overflow = true;
                        continue;
                    }
                    String id = e.context().toString();
                    if (!index.containsKey(id)) {
                        continue; // a temporary name, a checksum file
                    }
                    if (pending.remove(id)) {
                        found += answer(id, now);
                    } else {
                        early.add(id);
                    }
                }
                key.reset();
            }
            if (overflow || !pending.isEmpty() && System.nanoTime() - lastProgress > RELIST_NANOS) {
                found += relist();
            }
            return found;
        }

        /** Lists the directory: each pending stage's file present, each pending flush's link absent, is an answer. */
        private int relist() throws IOException {
            Set<String> present = new HashSet<>();
            try (DirectoryStream<Path> listing = Files.newDirectoryStream(watched)) {
                for (Path p : listing) {
                    present.add(p.getFileName().toString());
                }
            }
            long now = System.nanoTime();
            List<String> answered = new ArrayList<>();
            for (String id : pending) {
                if (present.contains(id) == stage) {
                    answered.add(id);
                }
            }
            for (String id : answered) {
                pending.remove(id);
                answer(id, now);
            }
            lastProgress = now;
            return answered.size();
        }

        private int answer(String id, long now) {
            removers.execute(() -> {
                try {
                    Files.deleteIfExists(dir.requestFile(id));
                    if (stage) {
                        Files.delete(dir.inFile(id));
                    }
                } catch (IOException | RuntimeException e) {
                    removeFailure.compareAndSet(null, e);
                }
            });
            int k = index.get(id);
            waits[k] = (now - writtenAt.get(k)) / 1e6;
            answeredAt[k] = now;
            last = now;
            lastProgress = now;
            taken++;
            return 1;
        }
    }

    private Path writeConfig() throws IOException {
        Path file = BenchDaemonConfig.write(base, dir.base(), state, speed, drives, cartridges, "stageBuffer: 100TB");
        // /metrics on a free local port: CatalogCommits reads the commit task count there
        Files.writeString(file, Files.readString(file).replace("  bind: off", "  bind: 127.0.0.1:0"));
        return file;
    }

    private static double seconds(long nanos) {
        return nanos / 1e9;
    }
}
