package org.tapeq.daemon.metrics;

import org.tapeq.scheduler.engine.store.CatalogWriter;

/** The scheduler's catalog writer, told into the daemon's metrics: task durations and aggregates per transaction. */
public final class CatalogTimingMetrics {

    private CatalogTimingMetrics() {
    }

    /** A timing that records into {@code metrics}; called on the catalog writer's thread. */
    public static CatalogWriter.Timing of(DaemonMetrics metrics) {
        return new CatalogWriter.Timing() {
            @Override
            public void taskDone(CatalogWriter.Kind kind, long nanos) {
                metrics.catalogTask(kind.label(), nanos / 1e9);
            }

            @Override
            public void batchCommitted(int aggregates) {
                metrics.catalogBatch(aggregates);
            }
        };
    }
}
