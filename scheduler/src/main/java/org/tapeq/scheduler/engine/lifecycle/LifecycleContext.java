package org.tapeq.scheduler.engine.lifecycle;

import java.nio.file.Path;
import java.util.concurrent.Executor;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

import org.tapeq.scheduler.catalog.Catalog;
import org.tapeq.scheduler.engine.dispatch.BackgroundWork;
import org.tapeq.scheduler.engine.queue.Cartridges;
import org.tapeq.scheduler.engine.queue.Queues;
import org.tapeq.scheduler.engine.store.CatalogWriter;
import org.tapeq.scheduler.tape.TapeLibrary;
import org.tapeq.scheduler.time.EventLoop;

/**
 * All the tape lifecycle work sees of the engine: the loop, the library, the catalog (called only through the
 * writer, so the loop never waits on it), the cartridge records and the queues (a cartridge's state changes
 * through them), where background tasks queue, the executor for blocking file I/O, the repack spool (its
 * directory, null when none is configured, and its bound in bytes) and the current aggregate limits (read
 * where used: a reload changes them).
 */
public record LifecycleContext(EventLoop loop, TapeLibrary library, Catalog catalog, CatalogWriter writer,
                               Cartridges cartridges, Queues queues, BackgroundWork background, Executor io,
                               Path spoolDirectory, long spoolBytes, LongSupplier aggregateBytes,
                               IntSupplier aggregateFiles) {
}
