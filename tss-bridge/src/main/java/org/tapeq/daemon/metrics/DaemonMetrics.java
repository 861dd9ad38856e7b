package org.tapeq.daemon.metrics;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.function.IntSupplier;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;

/**
 * The daemon's own Prometheus metrics: requests per directory and outcome, bytes moved, request latency,
 * event-loop latency, the bridges' intake (rescans, lost watch events, request files waiting to be read), and
 * the scheduler's work off the loop (catalog writer latency and depth, I/O backlog). Scheduler totals (mounts,
 * remounts, faults by class) and gauges (queue depths, buffer use) are added by whoever owns those numbers
 * through {@link #registry()}. Thread-safe.
 */
public final class DaemonMetrics {

    private final PrometheusRegistry registry = new PrometheusRegistry();

    private final Counter received = Counter.builder()
            .name("tapeq_requests_received_total")
            .help("Requests read from the request directories (a rewritten request file counts once)")
            .labelNames("directory", "kind")
            .withoutExemplars() // no tracing here: exemplars would only cost a sampler per observation
            .register(registry);

    private final Counter completed = Counter.builder()
            .name("tapeq_requests_completed_total")
            .help("Requests ended: staged, flushed, removed, failed (error file), parked (failed flush of the ENDIT "
                    + "provider) or cancelled")
            .labelNames("directory", "kind", "outcome")
            .withoutExemplars()
            .register(registry);

    private final Counter rejected = Counter.builder()
            .name("tapeq_requests_rejected_total")
            .help("Request files refused at intake (malformed, oversized, symbolic link, not a regular file, bad "
                    + "checksum syntax)")
            .labelNames("directory")
            .withoutExemplars()
            .register(registry);

    private final Counter bytes = Counter.builder()
            .name("tapeq_bytes_total")
            .help("Bytes delivered into in/ (stage) or acknowledged as written by this daemon (flush); tape "
                    + "bytes are tapeq_scheduler_events_total{event=\"bytes_read|bytes_written\"}")
            .labelNames("directory", "kind")
            .withoutExemplars()
            .register(registry);

    private final Histogram latency = Histogram.builder()
            .name("tapeq_request_duration_seconds")
            .help("From the daemon first seeing a request to its answer")
            .unit(Unit.SECONDS)
            .labelNames("kind", "outcome")
            .classicOnly()
            .classicExponentialUpperBounds(1, 2, 22) // 1 s .. about 24 days
            .withoutExemplars()
            .register(registry);

    private final Histogram loopLatency = Histogram.builder()
            .name("tapeq_loop_latency_seconds")
            .help("Delay between handing a task to the scheduler's event loop and it running")
            .unit(Unit.SECONDS)
            .classicOnly()
            .classicExponentialUpperBounds(0.0001, 4, 10) // 0.1 ms .. 26 s
            .withoutExemplars()
            .register(registry);

    private final Histogram rescans = Histogram.builder()
            .name("tapeq_rescan_duration_seconds")
            .help("Full rescans of a request directory and how long each took (_count is the number of rescans)")
            .unit(Unit.SECONDS)
            .labelNames("directory")
            .classicOnly()
            .classicExponentialUpperBounds(0.001, 4, 10) // 1 ms .. 4.4 min
            .withoutExemplars()
            .register(registry);

    private final Counter watchOverflows = Counter.builder()
            .name("tapeq_watch_overflows_total")
            .help("Times filesystem events for a request directory were lost (the kernel's or the bridge's event "
                    + "queue overflowed); each asks for a rescan")
            .labelNames("directory")
            .withoutExemplars()
            .register(registry);

    private final Gauge intakeBacklog = Gauge.builder()
            .name("tapeq_intake_backlog")
            .help("Request files found and not yet taken: waiting for the intake pool or being read")
            .labelNames("directory")
            .register(registry);

    private final Gauge answersUnwritten = Gauge.builder()
            .name("tapeq_answers_unwritten")
            .help("Failed requests whose error file could not be written yet (a full or failing filesystem); each "
                    + "is tried again with backoff until it is written or its request goes away")
            .labelNames("directory")
            .register(registry);

    private final Histogram catalogTasks = Histogram.builder()
            .name("tapeq_catalog_task_duration_seconds")
            .help("Catalog calls of the scheduler on its catalog writer, by kind (commit: an aggregate's commit and "
                    + "the cartridge's re-read; replace: a rebuilt or relabelled cartridge's contents), and how long "
                    + "each took")
            .unit(Unit.SECONDS)
            .labelNames("kind")
            .classicOnly()
            .classicExponentialUpperBounds(0.0001, 4, 10) // 0.1 ms .. 26 s
            .withoutExemplars()
            .register(registry);

    private final Histogram catalogBatches = Histogram.builder()
            .name("tapeq_catalog_commit_batch_aggregates")
            .help("Aggregate commits recorded per catalog transaction (group commit: the commits that queued up "
                    + "while the catalog writer was busy share one; a failed shared transaction is followed by one "
                    + "per aggregate)")
            .classicOnly()
            .classicUpperBounds(1, 2, 4, 8, 16, 32, 64)
            .withoutExemplars()
            .register(registry);

    public DaemonMetrics() {
        // The JVM's memory, GC, threads, class loading, and the process's CPU, memory and open files.
        JvmMetrics.builder().register(registry);
    }

    public PrometheusRegistry registry() {
        return registry;
    }

    /** Creates a directory's intake series at zero, so they exist before the first event. */
    public void directory(String directory) {
        rescans.labelValues(directory);
        watchOverflows.labelValues(directory);
        intakeBacklog.labelValues(directory).set(0);
        answersUnwritten.labelValues(directory).set(0);
    }

    /** Creates the catalog writer's series at zero, one per task kind. */
    public void catalogKinds(Iterable<String> kinds) {
        kinds.forEach(catalogTasks::labelValues);
    }

    /** A catalog writer task of this kind took {@code seconds}. */
    public void catalogTask(String kind, double seconds) {
        catalogTasks.labelValues(kind).observe(seconds);
    }

    /** A catalog transaction recorded {@code aggregates} aggregate commits. */
    public void catalogBatch(int aggregates) {
        catalogBatches.observe(aggregates);
    }

    /**
     * The scheduler's queues off the loop, read on every scrape: catalog writer tasks not yet done, and I/O
     * tasks waiting for room in the I/O pool.
     */
    public void offLoopQueues(IntSupplier catalogQueueDepth, IntSupplier ioBacklog) {
        GaugeWithCallback.builder().name("tapeq_catalog_queue_depth")
                .help("Catalog writer tasks submitted by the scheduler and not yet done (held by the loop, queued "
                        + "or running)")
                .callback(cb -> cb.call(catalogQueueDepth.getAsInt()))
                .register(registry);
        GaugeWithCallback.builder().name("tapeq_io_backlog")
                .help("Tasks of the scheduler (source checks, simulated copies) waiting for room in the I/O pool")
                .callback(cb -> cb.call(ioBacklog.getAsInt()))
                .register(registry);
    }

    public void rescanned(String directory, double seconds) {
        rescans.labelValues(directory).observe(seconds);
    }

    public void watchOverflow(String directory) {
        watchOverflows.labelValues(directory).inc();
    }

    public void intakeBacklog(String directory, int files) {
        intakeBacklog.labelValues(directory).set(files);
    }

    public void answersUnwritten(String directory, int answers) {
        answersUnwritten.labelValues(directory).set(answers);
    }

    public void received(String directory, String kind) {
        received.labelValues(directory, kind).inc();
    }

    public void rejected(String directory) {
        rejected.labelValues(directory).inc();
    }

    /** A request ended; {@code seconds} since it was first seen, {@code bytes} moved (0 if none). */
    public void completed(String directory, String kind, String outcome, double seconds, long movedBytes) {
        completed.labelValues(directory, kind, outcome).inc();
        latency.labelValues(kind, outcome).observe(Math.max(0, seconds));
        if (movedBytes > 0) {
            bytes.labelValues(directory, kind).inc(movedBytes);
        }
    }

    public void loopLatency(double seconds) {
        loopLatency.observe(seconds);
    }

    /** The Prometheus text exposition of everything registered. */
    public byte[] scrape() {
        ByteArrayOutputStream out = new ByteArrayOutputStream(16 * 1024);
        try {
            PrometheusTextFormatWriter.builder().setIncludeCreatedTimestamps(false).build().write(out, registry.scrape());
        } catch (IOException e) {
            throw new UncheckedIOException(e); // in memory: never
        }
        return out.toByteArray();
    }
}
