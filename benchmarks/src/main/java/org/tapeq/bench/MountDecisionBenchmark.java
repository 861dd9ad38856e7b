package org.tapeq.bench;

import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.tapeq.scheduler.engine.EngineHarness;
import org.tapeq.scheduler.engine.dispatch.Dispatcher;

/**
 * How long a mount decision takes with many non-empty cartridge queues (goal: at most 100 microseconds
 * with 100 000). {@code choose} is the decision alone; {@code chooseAndRequeue} adds taking the chosen
 * queue out of the index and filing it back, as a mount and its return do.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgs = {"-Xmx4g"})
public class MountDecisionBenchmark {

    @Param({"1000", "100000"})
    int queues;

    /** Requests per queue. */
    @Param({"3"})
    int perQueue;

    private EngineHarness engine;

    @Setup(Level.Trial)
    public void setUp() {
        engine = BenchEngines.engine(queues, 16);
        Random rnd = new Random(1);
        long id = 0;
        for (int q = 0; q < queues; q++) {
            for (int i = 0; i < perQueue; i++) {
                long now = 1_700_000_000_000L - 200_000 - rnd.nextInt(3_600_000);
                BenchEngines.admit(engine, BenchEngines.item(id, Long.toHexString(id), now, 1 + rnd.nextInt(500),
                        rnd.nextInt(50_000_000), 1 + rnd.nextInt(2_000_000_000)),
                        BenchEngines.barcode(q));
                id++;
            }
        }
        if (BenchEngines.choose(engine) == null) {
            throw new IllegalStateException("no queue ready; ready queues: " + BenchEngines.readyQueues(engine));
        }
    }

    @Benchmark
    public Object choose() {
        return BenchEngines.choose(engine);
    }

    @Benchmark
    public Object chooseAndRequeue() {
        Dispatcher.Choice c = BenchEngines.choose(engine);
        BenchEngines.requeue(engine, c);
        return c;
    }
}
