package org.tapeq.bench;

import java.lang.management.ManagementFactory;
import java.util.Random;

import org.tapeq.scheduler.engine.EngineHarness;
import org.tapeq.scheduler.engine.queue.StageItem;

/**
 * Heap per queued stage request in the engine (goal: 10 000 000 queued requests within 4 GB). Admits
 * {@code --requests} stage requests (24-hex-digit pnfsids, as dCache's) over {@code --queues} cartridge
 * queues, then prints the heap held per request after full collections. Run with {@code -Xmx4g} to prove
 * the goal: {@code ./tapeq bench-scheduler-heap}.
 */
public final class SchedulerHeapBenchmark {

    private SchedulerHeapBenchmark() {
    }

    public static void main(String[] args) {
        int requests = 10_000_000;
        int queues = 100_000;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--requests" -> requests = Integer.parseInt(args[++i]);
                case "--queues" -> queues = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + "; usage: [--requests N] [--queues Q]");
            }
        }
        EngineHarness engine = BenchEngines.engine(queues, 16);
        String[] barcodes = new String[queues];
        for (int q = 0; q < queues; q++) {
            barcodes[q] = BenchEngines.barcode(q);
        }
        long before = usedHeap();
        long t0 = System.nanoTime();
        Random rnd = new Random(1);
        for (int i = 0; i < requests; i++) {
            String pnfsid = String.format("0000%020X", i);
            StageItem item = BenchEngines.item(i, pnfsid, 1_700_000_000_000L - 200_000 - i % 3_600_000,
                    1 + rnd.nextInt(500),
                    rnd.nextInt(50_000_000), 1 + rnd.nextInt(2_000_000_000));
            BenchEngines.admit(engine, item, barcodes[rnd.nextInt(queues)]);
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        long after = usedHeap();
        long total = Runtime.getRuntime().maxMemory();
        System.out.printf("queued %,d stage requests in %,d queues in %.1f s (%,.0f admissions/s)%n", requests,
                queues, seconds, requests / seconds);
        System.out.printf("heap held by the queued requests: %,d bytes = %.1f bytes/request; max heap %,d MB%n",
                after - before, (after - before) / (double) requests, total >> 20);
        System.out.printf("ready queues %,d (the engine is alive: %s)%n", BenchEngines.readyQueues(engine),
                BenchEngines.choose(engine) != null);
    }

    private static long usedHeap() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
