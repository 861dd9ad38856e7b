package org.tapeq.bench;

import diskCacheV111.util.PnfsId;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.zip.Adler32;
import org.tapeq.poolemulator.EmulatedStageRequest;
import org.tapeq.poolemulator.PoolEmulator;
import org.tapeq.protocol.RequestDirectory;
import org.tapeq.protocol.StageChecksums;
import org.tapeq.provider.TapeqNearlineStorage;
import org.tapeq.daemon.rehearsal.ScratchTree;

/**
 * Puts N stage requests (default 1 000 000) in flight in one provider through the pool emulator, then
 * completes them by creating in/ files as fast as one thread can, either the way an ENDIT daemon delivers
 * ({@code --delivery endit}, the default: written in place, no checksum file, so the provider's grace period
 * applies) or the way a tapeq daemon does ({@code --delivery atomic}: the checksum file first, then the data
 * under a temporary name renamed into place, so the provider moves it in at once; docs/protocol.md, "Stage").
 * The writer does not force anything to disk: it stands for the daemon, whose own cost is measured by
 * {@code bench-daemon}; this measures the provider. Prints heap used per
 * request by the provider's own structures (heap with the requests in flight minus heap with the same
 * request objects created but not submitted), admissions per second (stage() until every request file is
 * written) and completions per second (first in/ file until the pool saw the last completion), the
 * provider's lost directory events and the scans that made up for them, and the JVM's garbage collections.
 *
 * <p>Run with {@code ./tapeq bench-provider} (which uses -Xmx512m). Not a test: it asserts nothing.
 */
public final class ProviderScaleBenchmark {
    public static void main(String[] args) throws Exception {
        int n = 1_000_000;
        boolean atomic = false;
        Path root = Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm") : Path.of(System.getProperty("java.io.tmpdir"));
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--requests": n = Integer.parseInt(args[++i]); break;
                case "--dir": root = Path.of(args[++i]); break;
                case "--delivery": atomic = delivery(args[++i]); break;
                default: throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        Path base = Files.createTempDirectory(root, "tapeq-bench-");
        try {
            run(base, n, atomic);
        } finally {
            ScratchTree.delete(base);
        }
    }

    private static boolean delivery(String name) {
        return switch (name) {
            case "endit" -> false;
            case "atomic" -> true;
            default -> throw new IllegalArgumentException("--delivery is endit or atomic, not " + name);
        };
    }

    private static void run(Path base, int n, boolean atomic) throws Exception {
        Path endit = Files.createDirectories(base.resolve("endit"));
        RequestDirectory dir = RequestDirectory.create(endit);
        PoolEmulator pool = PoolEmulator.builder().hsm("osm", "bench").dataDirectory(
                Files.createDirectories(base.resolve("pool"))).trackInFlight(false).build();
        TapeqNearlineStorage storage = new TapeqNearlineStorage("osm", "bench");
        storage.configure(Map.of("directory", endit.toString()));
        storage.start();
        pool.attach(storage);
        System.out.printf("tapeq provider scale benchmark: %,d stage requests, %s delivery, directory %s, max heap %d MB,"
                + " %d cpus%n", n, atomic ? "atomic (checksum file, rename)" : "ENDIT (in place, grace period)", endit,
                Runtime.getRuntime().maxMemory() >> 20, Runtime.getRuntime().availableProcessors());

        List<EmulatedStageRequest> requests = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            requests.add(pool.newStage(new PnfsId(String.format("0000%032X", i)), 1, "atlas:raw", null, null));
        }
        long heapBefore = usedHeapAfterGc();

        long start = System.nanoTime();
        for (int i = 0; i < n; i += 1000) {
            pool.stage(requests.subList(i, Math.min(n, i + 1000)));
        }
        long submitted = System.nanoTime();
        while (storage.requestFilesWritten() < n) {
            Thread.sleep(1);
        }
        long admitted = System.nanoTime();
        long heapInFlight = usedHeapAfterGc();
        System.out.printf("in flight: %,d requests, %,d request files%n", storage.inFlight(), storage.requestFilesWritten());
        System.out.printf("stage() calls: %.2f s; admissions (request file written): %,.0f /s%n",
                (submitted - start) / 1e9, n / ((admitted - start) / 1e9));
        System.out.printf("heap: %,d MB before submitting, %,d MB with all in flight: %.0f bytes per request%n",
                heapBefore >> 20, heapInFlight >> 20, (double) (heapInFlight - heapBefore) / n);

        byte[] one = {42};
        Adler32 adler = new Adler32();
        adler.update(one);
        byte[] checksumFile = StageChecksums.format(Map.of("adler32", String.format("%08x", adler.getValue())));
        Path temporary = dir.inFile("0").resolveSibling("bench-delivery.tmp"); // not a pnfsid: no request
        long deliverStart = System.nanoTime();
        for (int i = 0; i < n; i++) {
            String pnfsid = requests.get(i).pnfsId().toString();
            if (atomic) {
                Files.write(dir.checksumFile(pnfsid), checksumFile);
                Files.write(temporary, one);
                Files.move(temporary, dir.inFile(pnfsid), StandardCopyOption.ATOMIC_MOVE);
            } else {
                Files.write(dir.inFile(pnfsid), one);
            }
        }
        long delivered = System.nanoTime();
        while (pool.completedCount() + pool.failedCount() < n) {
            Thread.sleep(1);
        }
        long done = System.nanoTime();
        System.out.printf("in/ files written in %.2f s; completions: %,.0f /s (%,d completed, %,d failed)%n",
                (delivered - deliverStart) / 1e9, n / ((done - deliverStart) / 1e9), pool.completedCount(),
                pool.failedCount());
        System.out.printf("lost directory events: %s; GC: %d collections, %.1f s in all%n", storage.scanCounts(),
                gcCount(), gcMillis() / 1e3);
        System.out.printf("whole JVM within -Xmx%dm; SPI contract violations seen by the pool: %d%n",
                Runtime.getRuntime().maxMemory() >> 20, pool.violations().size());
        storage.shutdown();
        pool.close();
    }

    private static long gcCount() {
        return ManagementFactory.getGarbageCollectorMXBeans().stream()
                .mapToLong(GarbageCollectorMXBean::getCollectionCount).sum();
    }

    private static long gcMillis() {
        return ManagementFactory.getGarbageCollectorMXBeans().stream()
                .mapToLong(GarbageCollectorMXBean::getCollectionTime).sum();
    }

    private static long usedHeapAfterGc() throws InterruptedException {
        Runtime rt = Runtime.getRuntime();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 4; i++) {
            System.gc();
            Thread.sleep(100);
            used = Math.min(used, rt.totalMemory() - rt.freeMemory());
        }
        return used;
    }

}
