package org.tapeq.loadtest.run;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

import org.tapeq.protocol.PnfsIds;
import org.tapeq.protocol.RequestDirectory;

/**
 * The pool's side of stage completions, for benchmarks, on one thread: lists {@code in/} and takes every
 * delivered file as the providers do, request file first, then the staged file (the providers move it into the pool; removing it is
 * the same event for the daemon). Lists again at once while it finds files, else after 1 ms.
 */
public final class PoolSide {

    private final RequestDirectory dir;
    private final Thread thread;
    private volatile boolean stopped;
    private volatile long taken;
    private volatile long firstTakenNanos;
    private volatile long lastTakenNanos;
    private volatile Throwable failure;

    public PoolSide(RequestDirectory dir) {
        this.dir = dir;
        this.thread = new Thread(this::run, "bench-pool");
        this.thread.setDaemon(true);
    }

    public void start() {
        thread.start();
    }

    public void stop() throws InterruptedException {
        stopped = true;
        thread.join();
    }

    /** Files taken so far; rethrows what stopped the thread. */
    public long taken() {
        if (failure != null) {
            throw new IllegalStateException("the pool thread failed", failure);
        }
        return taken;
    }

    public long firstTakenNanos() {
        return firstTakenNanos;
    }

    public long lastTakenNanos() {
        return lastTakenNanos;
    }

    private void run() {
        try {
            while (!stopped) {
                if (takeAll() == 0) {
                    Thread.sleep(1);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException | RuntimeException e) {
            failure = e;
        }
    }

    private int takeAll() throws IOException {
        int found = 0;
        try (DirectoryStream<Path> in = Files.newDirectoryStream(dir.inDir())) {
            for (Path p : in) {
                String name = p.getFileName().toString();
                if (!PnfsIds.isPnfsId(name)) {
                    continue; // the daemon's temporary files
                }
                Files.deleteIfExists(dir.requestFile(name));
                Files.delete(p);
                found++;
                long now = System.nanoTime();
                if (taken == 0) {
                    firstTakenNanos = now;
                }
                lastTakenNanos = now;
                taken++;
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        return found;
    }
}
