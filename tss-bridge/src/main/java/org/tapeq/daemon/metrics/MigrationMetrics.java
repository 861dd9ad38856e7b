package org.tapeq.daemon.metrics;

import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.tapeq.scheduler.engine.SchedulerStatus;
import org.tapeq.scheduler.engine.lifecycle.MigrationReport;

/**
 * Gauges of the latest media migration ({@code tapeq migrate}) of this run: its bytes and cartridges by state,
 * its measured rate and, while it runs with an estimate, the seconds to its estimated end. No series while the
 * run has seen no migration.
 */
final class MigrationMetrics {

    private MigrationMetrics() {
    }

    static void register(PrometheusRegistry registry, Supplier<Optional<SchedulerStatus>> status) {
        GaugeWithCallback.builder().name("tapeq_migration_bytes")
                .help("Bytes of the latest media migration: total (live when it started), moved, left")
                .labelNames("state")
                .callback(cb -> latest(status).ifPresent(m -> {
                    cb.call(m.bytesTotal(), "total");
                    cb.call(m.bytesDone(), "moved");
                    cb.call(m.bytesLeft(), "left");
                }))
                .register(registry);
        GaugeWithCallback.builder().name("tapeq_migration_cartridges")
                .help("Cartridges of the latest media migration: total, emptied, failed (tried, not emptied), left")
                .labelNames("state")
                .callback(cb -> latest(status).ifPresent(m -> {
                    cb.call(m.cartridgesTotal(), "total");
                    cb.call(m.cartridgesDone(), "emptied");
                    cb.call(m.cartridgesFailed(), "failed");
                    cb.call(m.cartridgesTotal() - m.cartridgesDone() - m.cartridgesFailed(), "left");
                }))
                .register(registry);
        GaugeWithCallback.builder().name("tapeq_migration_rate_bytes_per_second")
                .help("Bytes per second the running media migration has moved in this run, as measured")
                .callback(cb -> latest(status).filter(m -> !m.hasEnded())
                        .ifPresent(m -> cb.call(m.rateBytesPerSecond())))
                .register(registry);
        GaugeWithCallback.builder().name("tapeq_migration_eta_seconds")
                .help("Seconds until the running media migration's estimated end, from its measured rate (no value"
                        + " until bytes have moved)")
                .callback(cb -> status.get().ifPresent(s -> latestOf(s).filter(m -> !m.hasEnded() && m.etaMillis() > 0)
                        .ifPresent(m -> cb.call(Math.max(0, m.etaMillis() - s.now()) / 1000.0))))
                .register(registry);
    }

    private static Optional<MigrationReport> latest(Supplier<Optional<SchedulerStatus>> status) {
        return status.get().flatMap(MigrationMetrics::latestOf);
    }

    private static Optional<MigrationReport> latestOf(SchedulerStatus s) {
        List<MigrationReport> all = s.migrations();
        return all.isEmpty() ? Optional.empty() : Optional.of(all.get(all.size() - 1));
    }
}
