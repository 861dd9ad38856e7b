package org.tapeq.bench;

import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.tapeq.scheduler.engine.EngineHarness;
import org.tapeq.scheduler.engine.queue.StageItem;

/**
 * Enqueue and dequeue throughput of the engine's queues: each invocation admits {@link #BATCH} stage
 * requests spread over the cartridge queues (counters, index re-filing) and then completes them all
 * (counters, index, outcome delivery). Reported per request.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgs = {"-Xmx4g"})
public class QueueThroughputBenchmark {

    static final int BATCH = 100_000;

    @Param({"1000", "100000"})
    int queues;

    private EngineHarness engine;
    private StageItem[] items;
    private String[] barcodes;
    private long nextId;

    @Setup(Level.Iteration)
    public void setUp() {
        engine = BenchEngines.engine(queues, 16);
        barcodes = new String[queues];
        for (int q = 0; q < queues; q++) {
            barcodes[q] = BenchEngines.barcode(q);
        }
        items = new StageItem[BATCH];
    }

    @Benchmark
    @OperationsPerInvocation(2 * BATCH)
    public int enqueueThenComplete() {
        Random rnd = new Random(nextId);
        for (int i = 0; i < BATCH; i++) {
            long id = nextId++;
            var item = BenchEngines.item(id, Long.toHexString(id), 1_700_000_000_000L + i, 1 + rnd.nextInt(500),
                    rnd.nextInt(50_000_000), 1_000_000);
            items[i] = item;
            BenchEngines.admit(engine, item, barcodes[rnd.nextInt(queues)]);
        }
        for (int i = 0; i < BATCH; i++) {
            BenchEngines.finish(engine, items[i]);
        }
        return BenchEngines.readyQueues(engine);
    }
}
