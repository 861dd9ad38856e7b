package org.tapeq.provider;

import java.io.IOException;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.protocol.DirectoryWatcher;
import org.tapeq.protocol.RequestDirectory;

/**
 * Turns the request directory's events into task signals, through the protocol's {@link DirectoryWatcher}
 * (its thread is {@code tapeq-<name>-watch}): a file created in {@code in/}, an error file created in
 * {@code request/}, a link removed from {@code out/}. It only looks the task up (O(1)) and signals it. Events
 * from other hosts of a shared filesystem are not seen at all, and an overflow loses events; the
 * {@link Rescanner} covers both, after an overflow with a recovery scan of the subdirectory concerned.
 */
final class EventSignals implements DirectoryWatcher.Listener {
    private static final Logger LOG = LoggerFactory.getLogger(EventSignals.class);

    private final ProviderRuntime rt;
    private final Rescanner rescanner;
    private final DirectoryWatcher watcher;
    /** Set by tests to emulate a shared filesystem whose changes on other hosts raise no events. */
    private volatile boolean ignoreEvents;
    private final LongAdder overflows = new LongAdder();

    EventSignals(ProviderRuntime rt, Rescanner rescanner) throws IOException {
        this.rt = rt;
        this.rescanner = rescanner;
        this.watcher = DirectoryWatcher.of(rt.directory)
                .watch(RequestDirectory.IN, DirectoryWatcher.Change.CREATED)
                .watch(RequestDirectory.OUT, DirectoryWatcher.Change.REMOVED)
                .watch(RequestDirectory.REQUEST, DirectoryWatcher.Change.CREATED)
                .threadName("tapeq-" + rt.hsmName + "-watch")
                .listener(this)
                .build();
    }

    void start() {
        watcher.start();
    }

    void stop() {
        watcher.close();
    }

    void ignoreEvents(boolean ignore) {
        this.ignoreEvents = ignore;
    }

    @Override
    public void changed(String subdirectory, String name, DirectoryWatcher.Change change) {
        if (ignoreEvents) {
            return;
        }
        String id = name;
        if (RequestDirectory.REQUEST.equals(subdirectory)) {
            id = RequestDirectory.pnfsIdOfErrorFile(name);
            if (id == null) {
                return; // request files and temporary files: our own writes
            }
        }
        Task task = rt.registry.byFileName(id);
        if (task != null) {
            task.signal();
        }
    }

    @Override
    public void overflowed(String subdirectory, String detail) {
        if (ignoreEvents) {
            return;
        }
        overflows.increment();
        LOG.debug("{}: events were lost (queue overflow); scanning {}/ again", detail, subdirectory);
        rescanner.recoverSoon(subdirectory);
    }

    @Override
    public void lost(DirectoryWatcher.Loss loss, String detail) {
        if (loss == DirectoryWatcher.Loss.OVERFLOW) {
            if (ignoreEvents) {
                return;
            }
            overflows.increment();
            LOG.debug("{}: events were lost (queue overflow); scanning every subdirectory again", detail);
        } else {
            LOG.error("{}: the directory can no longer be watched ({}); relying on rescans", detail, loss);
        }
        rescanner.recoverSoon(null);
    }

    /** Overflows reported so far. */
    long overflows() {
        return overflows.sum();
    }
}
