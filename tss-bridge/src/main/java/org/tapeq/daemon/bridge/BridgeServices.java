package org.tapeq.daemon.bridge;

import java.util.concurrent.Executor;
import java.util.function.LongSupplier;

import org.tapeq.daemon.metrics.DaemonMetrics;
import org.tapeq.scheduler.catalog.Catalog;
import org.tapeq.scheduler.engine.Scheduler;
import org.tapeq.scheduler.time.EventLoop;

/**
 * What every directory bridge shares.
 *
 * @param speed     how much faster than the wall clock the scheduler's loop runs (1 in production)
 * @param intake    the pool that reads request files
 * @param wallClock epoch milliseconds
 */
public record BridgeServices(Scheduler scheduler, Catalog catalog, EventLoop loop, double speed,
                             DaemonMetrics metrics, Executor intake, LongSupplier wallClock) {
}
