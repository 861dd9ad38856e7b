package org.tapeq.provider;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.protocol.RequestDirectory;

/**
 * One thread that turns inotify events into task signals: a file created in {@code in/}, an error file
 * created in {@code request/}, a link deleted from {@code out/}. It only looks the task up (O(1)) and
 * signals it. Events from other hosts of a shared filesystem are not seen at all, and an overflow loses
 * events; the {@link Rescanner} covers both.
 */
final class DirectoryWatcher implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(DirectoryWatcher.class);

    private final ProviderRuntime rt;
    private final Rescanner rescanner;
    private final WatchService watchService;
    private final WatchKey inKey;
    private final WatchKey outKey;
    private final WatchKey requestKey;
    private final Thread thread;
    /** Set by tests to emulate a shared filesystem whose changes on other hosts raise no events. */
    private volatile boolean ignoreEvents;

    DirectoryWatcher(ProviderRuntime rt, Rescanner rescanner) throws IOException {
        this.rt = rt;
        this.rescanner = rescanner;
        RequestDirectory dir = rt.directory;
        this.watchService = dir.base().getFileSystem().newWatchService();
        this.inKey = dir.inDir().register(watchService, StandardWatchEventKinds.ENTRY_CREATE);
        this.outKey = dir.outDir().register(watchService, StandardWatchEventKinds.ENTRY_DELETE);
        this.requestKey = dir.requestDir().register(watchService, StandardWatchEventKinds.ENTRY_CREATE);
        this.thread = new Thread(this, "tapeq-" + rt.hsmName + "-watch");
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    @Override
    public void run() {
        try {
            while (!Thread.currentThread().isInterrupted()) {
                WatchKey key = watchService.poll(1, TimeUnit.SECONDS);
                if (key == null) {
                    continue;
                }
                for (WatchEvent<?> event : key.pollEvents()) {
                    dispatch(key, event);
                }
                if (!key.reset()) {
                    LOG.error("{}: the directory can no longer be watched (removed?); relying on rescans",
                            key.watchable());
                    rescanner.requestSoon();
                }
            }
        } catch (InterruptedException | ClosedWatchServiceException e) {
            // shutting down
        }
    }

    void ignoreEvents(boolean ignore) {
        this.ignoreEvents = ignore;
    }

    private void dispatch(WatchKey key, WatchEvent<?> event) {
        if (ignoreEvents) {
            return;
        }
        if (event.kind() == StandardWatchEventKinds.OVERFLOW) {
            LOG.debug("{}: events were lost (queue overflow); rescanning", key.watchable());
            rescanner.requestSoon();
            return;
        }
        String name = ((Path) event.context()).toString();
        String id = name;
        if (key == requestKey) {
            id = RequestDirectory.pnfsIdOfErrorFile(name);
            if (id == null) {
                return; // request files and temporary files: our own writes
            }
        } else if (key != inKey && key != outKey) {
            return;
        }
        Task task = rt.registry.byFileName(id);
        if (task != null) {
            task.signal();
        }
    }

    void stop() {
        thread.interrupt();
        try {
            watchService.close();
        } catch (IOException e) {
            LOG.debug("closing the watch service: {}", e.toString());
        }
    }
}
