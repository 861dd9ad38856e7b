package org.tapeq.daemon.metrics;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.engine.store.CatalogWriter;

class DaemonMetricsTest {

    @Test
    void catalogAndIoSeries_existAtZeroAndFollowTheirSources() {
        DaemonMetrics metrics = new DaemonMetrics();
        AtomicInteger depth = new AtomicInteger();
        AtomicInteger backlog = new AtomicInteger();
        metrics.catalogKinds(List.of("commit", "replace"));
        metrics.offLoopQueues(depth::get, backlog::get);

        String scrape = new String(metrics.scrape());
        assertTrue(scrape.contains("tapeq_catalog_task_duration_seconds_count{kind=\"commit\"} 0"), scrape);
        assertTrue(scrape.contains("tapeq_catalog_task_duration_seconds_count{kind=\"replace\"} 0"), scrape);
        assertTrue(scrape.contains("tapeq_catalog_queue_depth 0.0"), scrape);
        assertTrue(scrape.contains("tapeq_io_backlog 0.0"), scrape);

        metrics.catalogTask("commit", 0.003);
        metrics.catalogTask("commit", 2.5);
        depth.set(7);
        backlog.set(3);
        scrape = new String(metrics.scrape());
        assertTrue(scrape.contains("tapeq_catalog_task_duration_seconds_count{kind=\"commit\"} 2"), scrape);
        assertTrue(scrape.contains("tapeq_catalog_task_duration_seconds_bucket{kind=\"commit\",le=\"0.0064\"} 1"),
                scrape);
        assertTrue(scrape.contains("tapeq_catalog_queue_depth 7.0"), scrape);
        assertTrue(scrape.contains("tapeq_io_backlog 3.0"), scrape);
    }

    @Test
    void catalogTransactions_areCountedByTheirAggregates() {
        DaemonMetrics metrics = new DaemonMetrics();
        CatalogWriter.Timing timing = CatalogTimingMetrics.of(metrics);
        timing.batchCommitted(1);
        timing.batchCommitted(3);
        timing.batchCommitted(3);
        timing.taskDone(CatalogWriter.Kind.COMMIT, 2_000_000);

        String scrape = new String(metrics.scrape());
        assertTrue(scrape.contains("tapeq_catalog_commit_batch_aggregates_count 3"), scrape);
        assertTrue(scrape.contains("tapeq_catalog_commit_batch_aggregates_sum 7.0"), scrape);
        assertTrue(scrape.contains("tapeq_catalog_commit_batch_aggregates_bucket{le=\"2.0\"} 1"), scrape);
        assertTrue(scrape.contains("tapeq_catalog_commit_batch_aggregates_bucket{le=\"4.0\"} 3"), scrape);
        assertTrue(scrape.contains("tapeq_catalog_task_duration_seconds_count{kind=\"commit\"} 1"), scrape);
    }
}
