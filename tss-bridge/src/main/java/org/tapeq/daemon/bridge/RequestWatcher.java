package org.tapeq.daemon.bridge;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.HashMap;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.protocol.PnfsIds;
import org.tapeq.protocol.RequestDirectory;

/**
 * One thread turning the filesystem's change events (inotify on Linux) for a request directory into calls on
 * its bridge: request files created or removed, links appearing in {@code out/}, names in {@code trash/}, staged
 * files leaving {@code in/}. Only pnfsid names are passed on. Changes made on other hosts of a shared filesystem
 * raise no events and an overflow loses some; the bridge's periodic rescan covers both, and an overflow asks
 * for one at once.
 */
final class RequestWatcher implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RequestWatcher.class);

    /** Receives events; called on the watcher's thread. */
    interface Listener {
        void changed(String subdirectory, String pnfsid, boolean created);

        void lost();
    }

    private final WatchService service;
    private final Map<WatchKey, String> keys = new HashMap<>();
    private final Listener listener;
    private final Thread thread;

    RequestWatcher(String name, RequestDirectory dir, Listener listener) throws IOException {
        this.listener = listener;
        this.service = dir.base().getFileSystem().newWatchService();
        register(dir.requestDir(), RequestDirectory.REQUEST, StandardWatchEventKinds.ENTRY_CREATE,
                StandardWatchEventKinds.ENTRY_DELETE, StandardWatchEventKinds.ENTRY_MODIFY);
        register(dir.outDir(), RequestDirectory.OUT, StandardWatchEventKinds.ENTRY_CREATE);
        register(dir.trashDir(), RequestDirectory.TRASH, StandardWatchEventKinds.ENTRY_CREATE);
        // Only removals matter in in/. Each staged file also raises a create and a modify there (temporary
        // name, then the rename), and every event counts towards the overflow that forces a full rescan.
        register(dir.inDir(), RequestDirectory.IN, StandardWatchEventKinds.ENTRY_DELETE);
        this.thread = new Thread(this::run, "tapeq-" + name + "-watch");
        this.thread.setDaemon(true);
    }

    private void register(Path dir, String sub, WatchEvent.Kind<?>... kinds) throws IOException {
        keys.put(dir.register(service, kinds), sub);
    }

    void start() {
        thread.start();
    }

    private void run() {
        try {
            while (true) {
                WatchKey key = service.take();
                String sub = keys.get(key);
                for (WatchEvent<?> event : key.pollEvents()) {
                    if (event.kind() == StandardWatchEventKinds.OVERFLOW) {
                        listener.lost();
                        continue;
                    }
                    String name = event.context().toString();
                    if (PnfsIds.isPnfsId(name)) {
                        listener.changed(sub, name, event.kind() != StandardWatchEventKinds.ENTRY_DELETE);
                    }
                }
                if (!key.reset()) {
                    LOG.error("{} can no longer be watched (removed?); relying on rescans", key.watchable());
                    listener.lost();
                }
            }
        } catch (InterruptedException | ClosedWatchServiceException e) {
            // closing
        } catch (RuntimeException e) {
            LOG.error("The directory watcher stopped; relying on rescans", e);
            listener.lost();
        }
    }

    @Override
    public void close() {
        try {
            service.close();
        } catch (IOException e) {
            LOG.debug("closing the watch service: {}", e.toString());
        }
        thread.interrupt();
    }
}
