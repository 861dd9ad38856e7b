package org.tapeq.protocol;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One thread turning the filesystem's change events (inotify on Linux) in a request directory's subdirectories
 * into calls on a listener. The provider and the daemon both use it, each watching the subdirectories and
 * changes it cares about. Changes made on other hosts of a shared filesystem raise no events and an overflow
 * loses some: the user's periodic rescan covers both, and {@link Listener#lost} asks for one sooner.
 *
 * <p>The listener is called on the watcher's thread and should only hand the event on. Every name is passed
 * as it is; telling protocol files from temporary files is the listener's business. Built for Java 11 (the
 * provider runs in dCache pools) and logs nothing itself: what went wrong reaches the listener.
 */
public final class DirectoryWatcher implements AutoCloseable {

    /** A kind of change to watch for. */
    public enum Change {
        CREATED(StandardWatchEventKinds.ENTRY_CREATE),
        MODIFIED(StandardWatchEventKinds.ENTRY_MODIFY),
        REMOVED(StandardWatchEventKinds.ENTRY_DELETE);

        private final WatchEvent.Kind<Path> kind;

        Change(WatchEvent.Kind<Path> kind) {
            this.kind = kind;
        }
    }

    /** Why events were lost. */
    public enum Loss {
        /** The event queue overflowed (a burst of changes); the watcher goes on. */
        OVERFLOW,
        /** A subdirectory can no longer be watched (removed or renamed); the others are still watched. */
        UNWATCHABLE,
        /** The watcher stopped on an unexpected error; only rescans see changes from now on. */
        STOPPED
    }

    /** Receives events on the watcher's thread. */
    public interface Listener {

        /** {@code name} changed in {@code subdirectory} (one of {@link RequestDirectory#SUBDIRECTORIES}). */
        void changed(String subdirectory, String name, Change change);

        /** Events were lost; {@code detail} says where or why, for a log. */
        void lost(Loss loss, String detail);

        /**
         * Events in {@code subdirectory} were lost to an overflow ({@link Loss#OVERFLOW}), so that a listener can
         * make up for that subdirectory alone; by default {@link #lost(Loss, String)}.
         */
        default void overflowed(String subdirectory, String detail) {
            lost(Loss.OVERFLOW, detail);
        }
    }

    private final WatchService service;
    private final Map<WatchKey, String> keys = new HashMap<>();
    private final Listener listener;
    private final Thread thread;

    private DirectoryWatcher(Builder b) throws IOException {
        this.listener = b.listener;
        this.service = b.dir.base().getFileSystem().newWatchService();
        try {
            for (Map.Entry<String, Set<Change>> e : b.watched.entrySet()) {
                List<WatchEvent.Kind<?>> kinds = new ArrayList<>();
                for (Change c : e.getValue()) {
                    kinds.add(c.kind);
                }
                Path sub = b.dir.base().resolve(e.getKey());
                keys.put(sub.register(service, kinds.toArray(new WatchEvent.Kind<?>[0])), e.getKey());
            }
        } catch (IOException | RuntimeException e) {
            service.close();
            throw e;
        }
        this.thread = new Thread(this::run, b.threadName);
        this.thread.setDaemon(true);
    }

    /** Starts describing a watcher of {@code dir}. */
    public static Builder of(RequestDirectory dir) {
        return new Builder(dir);
    }

    /** What to watch, the thread's name and the listener. */
    public static final class Builder {
        private final RequestDirectory dir;
        private final Map<String, Set<Change>> watched = new HashMap<>();
        private String threadName = "tapeq-watch";
        private Listener listener;

        private Builder(RequestDirectory dir) {
            this.dir = dir;
        }

        /** Watches {@code subdirectory} (e.g. {@link RequestDirectory#IN}) for these changes. */
        public Builder watch(String subdirectory, Change first, Change... more) {
            if (!RequestDirectory.SUBDIRECTORIES.contains(subdirectory)) {
                throw new IllegalArgumentException("not a request-directory subdirectory: " + subdirectory);
            }
            watched.computeIfAbsent(subdirectory, k -> EnumSet.noneOf(Change.class)).add(first);
            for (Change c : more) {
                watched.get(subdirectory).add(c);
            }
            return this;
        }

        public Builder threadName(String name) {
            this.threadName = name;
            return this;
        }

        public Builder listener(Listener l) {
            this.listener = l;
            return this;
        }

        /** Registers the watches (an IOException if the filesystem cannot watch); call {@link #start} next. */
        public DirectoryWatcher build() throws IOException {
            if (listener == null || watched.isEmpty()) {
                throw new IllegalStateException("a watcher needs a listener and something to watch");
            }
            return new DirectoryWatcher(this);
        }
    }

    public void start() {
        thread.start();
    }

    private void run() {
        try {
            while (true) {
                WatchKey key = service.take();
                String sub = keys.get(key);
                for (WatchEvent<?> event : key.pollEvents()) {
                    WatchEvent.Kind<?> kind = event.kind();
                    if (kind == StandardWatchEventKinds.OVERFLOW) {
                        if (sub != null) {
                            listener.overflowed(sub, String.valueOf(key.watchable()));
                        } else {
                            listener.lost(Loss.OVERFLOW, String.valueOf(key.watchable()));
                        }
                    } else if (sub != null) {
                        listener.changed(sub, event.context().toString(), changeOf(kind));
                    }
                }
                if (!key.reset()) {
                    listener.lost(Loss.UNWATCHABLE, String.valueOf(key.watchable()));
                }
            }
        } catch (InterruptedException | ClosedWatchServiceException e) {
            // closing
        } catch (RuntimeException e) {
            listener.lost(Loss.STOPPED, e.toString());
        }
    }

    private static Change changeOf(WatchEvent.Kind<?> kind) {
        if (kind == StandardWatchEventKinds.ENTRY_CREATE) {
            return Change.CREATED;
        }
        return kind == StandardWatchEventKinds.ENTRY_DELETE ? Change.REMOVED : Change.MODIFIED;
    }

    /** Stops the thread and releases the watches; no call reaches the listener after the thread ends. */
    @Override
    public void close() {
        try {
            service.close();
        } catch (IOException e) {
            // nothing to do: the service is gone either way
        }
        thread.interrupt();
    }
}
