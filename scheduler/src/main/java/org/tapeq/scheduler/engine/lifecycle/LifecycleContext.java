package org.tapeq.scheduler.engine.lifecycle;

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
 * through them) and where background tasks queue.
 */
public record LifecycleContext(EventLoop loop, TapeLibrary library, Catalog catalog, CatalogWriter writer,
                               Cartridges cartridges, Queues queues, BackgroundWork background) {
}
