package org.tapeq.daemon.bridge;

import java.util.function.LongSupplier;

import org.tapeq.daemon.metrics.DaemonMetrics;
import org.tapeq.scheduler.catalog.Catalog;
import org.tapeq.scheduler.engine.Scheduler;
import org.tapeq.scheduler.time.EventLoop;

/**
 * What every directory bridge shares.
 *
 * @param speed         how much faster than the wall clock the scheduler's loop runs (1 in production)
 * @param intake        the bounded pool that reads request files ({@link IntakePool})
 * @param intakeBatches batches of request files one directory may have in the intake pool at a time
 * @param wallClock     epoch milliseconds
 */
public record BridgeServices(Scheduler scheduler, Catalog catalog, EventLoop loop, double speed,
                             DaemonMetrics metrics, ReadPool intake, int intakeBatches, LongSupplier wallClock) {

    public BridgeServices {
        if (intakeBatches < 1) {
            throw new IllegalArgumentException("intakeBatches must be at least 1");
        }
    }
}
