package org.tapeq.daemon.bridge;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.protocol.HeldDirectory;
import org.tapeq.protocol.RequestDirectory;
import org.tapeq.scheduler.time.Threads;

/**
 * Delivers staged files into {@code in/} in batches (group commit): the bridge's thread hands each file over and
 * goes on; one committer thread makes a whole batch durable and renames it into place, and the bridge's thread
 * learns the result afterwards ({@link Delivery#failure}).
 *
 * <p>Design notes.
 * <ol>
 * <li><b>One batch at a time.</b> While a batch is being committed, the files that arrive wait in the next one;
 *     when it is done the next starts at once. An idle daemon therefore commits a lone file at once (no timer),
 *     and a busy one commits ever larger batches, at most {@value #MAX_BATCH} files.</li>
 * <li><b>Order within a batch</b> (docs/protocol.md, "Delivery by a tapeq daemon"): each file's checksum file
 *     (tapeq's extension only) is written under a temporary name; every temporary file's data is forced to disk,
 *     {@value #SYNC_THREADS} at a time (the filesystem's journal commits concurrent forces together, so they cost
 *     about as much as one); the checksum files are renamed into place and the directory forced; then the data
 *     files are renamed into place and the directory forced. So a name in {@code in/} never shows data that is
 *     not on disk, and a file's checksum file is durable before the file's name appears. The same guarantees as
 *     one file at a time, with two directory forces per batch instead of two per file. A file that fails after its
 *     rename (the last directory force, or anything unforeseen) is taken out of {@code in/} before its failure is
 *     reported, since the pool would take a whole file in {@code in/} next to its error file.</li>
 * <li><b>Every batch ends.</b> Whatever breaks off a commit, each file of the batch is reported and the next batch
 *     starts; otherwise every later staged file would wait for ever.</li>
 * <li><b>Threads.</b> The committer and the sync threads touch only files, through the directory held open; every
 *     request's state stays on the bridge's thread. Both executors are bounded: one batch in flight (a second is
 *     refused, which cannot happen since the bridge waits for the first), and the sync queue holds all of a batch's
 *     files, so a force is refused only once the daemon stops; that file then fails (its future would otherwise
 *     never complete).</li>
 * </ol>
 */
final class Deliveries {

    private static final Logger LOG = LoggerFactory.getLogger(Deliveries.class);

    /** The most files committed in one batch. */
    static final int MAX_BATCH = 1024;
    /** Files forced at once. */
    static final int SYNC_THREADS = 16;

    /** One staged file on its way into {@code in/}. */
    static final class Delivery {
        final Tracked tracked;
        /** The staged file's temporary name in in/. */
        final String temporary;
        /** The checksum file's content, or null for none. */
        final byte[] checksumFile;
        final long bytes;
        final String checksum;
        /** Set by the committer: the checksum file's temporary name, while it has one. */
        private String checksumTemporary;
        /** Set by the committer: whether the data file carries its final name in in/. */
        private boolean inPlace;
        /** Set by the committer: why the file was not delivered, or null. */
        volatile IOException failure;

        Delivery(Tracked tracked, String temporary, byte[] checksumFile, long bytes, String checksum) {
            this.tracked = tracked;
            this.temporary = temporary;
            this.checksumFile = checksumFile;
            this.bytes = bytes;
            this.checksum = checksum;
        }
    }

    /** What the committer does to in/: the directory held open, or a stand-in in tests. */
    interface Directory {
        String writeTemporary(String name, byte[] data) throws IOException;

        void forceFile(String name) throws IOException;

        void rename(String from, String to) throws IOException;

        void delete(String name) throws IOException;

        void forceSelf() throws IOException;

        Object path();

        static Directory of(HeldDirectory held) {
            return new Directory() {
                @Override
                public String writeTemporary(String name, byte[] data) throws IOException {
                    return held.writeTemporary(name, data, false);
                }

                @Override
                public void forceFile(String name) throws IOException {
                    held.forceFile(name);
                }

                @Override
                public void rename(String from, String to) throws IOException {
                    held.rename(from, to);
                }

                @Override
                public void delete(String name) throws IOException {
                    held.delete(name);
                }

                @Override
                public void forceSelf() throws IOException {
                    held.forceSelf();
                }

                @Override
                public Object path() {
                    return held.path();
                }
            };
        }
    }

    private final String name;
    private final Directory in;
    private final BridgeThread bridge;
    private final Consumer<Delivery> done;
    private final ThreadPoolExecutor committer;
    private final ThreadPoolExecutor syncers;
    /** Files waiting for the next batch; on the bridge's thread. */
    private List<Delivery> pending = new ArrayList<>();
    /** Whether a batch is being committed; on the bridge's thread. */
    private boolean inFlight;

    /** {@code done} is called on the bridge's thread for every file, delivered or not. */
    Deliveries(String name, HeldDirectory in, BridgeThread bridge, Consumer<Delivery> done) {
        this(name, Directory.of(in), bridge, done);
    }

    Deliveries(String name, Directory in, BridgeThread bridge, Consumer<Delivery> done) {
        this.name = name;
        this.in = in;
        this.bridge = bridge;
        this.done = done;
        this.committer = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new ArrayBlockingQueue<>(1),
                Threads.named("tapeq-" + name + "-deliver"), new ThreadPoolExecutor.AbortPolicy());
        this.syncers = new ThreadPoolExecutor(SYNC_THREADS, SYNC_THREADS, 30, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(2 * MAX_BATCH), Threads.numbered("tapeq-" + name + "-sync"),
                new ThreadPoolExecutor.AbortPolicy());
        this.syncers.allowCoreThreadTimeOut(true);
    }

    /** Hands a staged file over; on the bridge's thread. */
    void add(Delivery d) {
        pending.add(d);
        if (!inFlight) {
            next();
        }
    }

    private void next() {
        if (pending.isEmpty()) {
            return;
        }
        List<Delivery> batch;
        if (pending.size() <= MAX_BATCH) {
            batch = pending;
            pending = new ArrayList<>();
        } else {
            batch = new ArrayList<>(pending.subList(0, MAX_BATCH));
            pending = new ArrayList<>(pending.subList(MAX_BATCH, pending.size()));
        }
        inFlight = true;
        try {
            committer.execute(() -> {
                try {
                    commit(batch);
                } catch (Throwable t) {
                    failed(batch, t);
                } finally {
                    bridge.run(() -> finished(batch));
                }
            });
        } catch (RejectedExecutionException e) {
            // stopping: the temporary files stay, and a restart stages these requests again
            LOG.debug("{}: stopping; {} staged files not delivered", name, batch.size());
        }
    }

    private void finished(List<Delivery> batch) {
        inFlight = false;
        for (Delivery d : batch) {
            done.accept(d);
        }
        next();
    }

    /** The group commit, on the committer's thread. */
    private void commit(List<Delivery> batch) {
        List<String> toForce = new ArrayList<>(2 * batch.size());
        List<Delivery> owners = new ArrayList<>(2 * batch.size());
        for (Delivery d : batch) {
            if (d.checksumFile != null) {
                try {
                    d.checksumTemporary = in.writeTemporary(RequestDirectory.checksumFileName(
                            d.tracked.pnfsid), d.checksumFile);
                    toForce.add(d.checksumTemporary);
                    owners.add(d);
                } catch (IOException e) {
                    d.failure = e;
                    continue;
                }
            }
            toForce.add(d.temporary);
            owners.add(d);
        }
        forceAll(toForce, owners);
        boolean checksums = false;
        for (Delivery d : batch) {
            if (d.checksumTemporary != null && d.failure == null) {
                try {
                    in.rename(d.checksumTemporary, RequestDirectory.checksumFileName(d.tracked.pnfsid));
                    d.checksumTemporary = null;
                    checksums = true;
                } catch (IOException e) {
                    d.failure = e;
                }
            }
        }
        if (checksums) {
            forceDirectory(batch);
        }
        for (Delivery d : batch) {
            if (d.failure == null) {
                try {
                    in.rename(d.temporary, d.tracked.pnfsid);
                    d.inPlace = true;
                } catch (IOException e) {
                    d.failure = e;
                }
            }
        }
        forceDirectory(batch);
        takeOutFailed(batch);
        for (Delivery d : batch) {
            if (d.checksumTemporary != null) {
                deleteQuietly(d.checksumTemporary);
            }
        }
    }

    /**
     * Something unforeseen (a runtime exception, an error) broke off the commit: every file not yet delivered
     * fails, and those already renamed into place are taken out again, so that the bridge's thread hears of every
     * file and the next batch starts.
     */
    private void failed(List<Delivery> batch, Throwable t) {
        List<String> files = new ArrayList<>(batch.size());
        for (Delivery d : batch) {
            files.add(d.tracked.pnfsid);
            if (d.failure == null) {
                d.failure = new IOException("committing the batch failed: " + t, t);
            }
        }
        LOG.error("{}: committing staged files {} into {} failed", name, files, in.path(), t);
        try {
            takeOutFailed(batch);
        } catch (Throwable again) {
            LOG.error("{}: cannot take failed files out of {}", name, in.path(), again);
        }
    }

    /**
     * A file that failed after its data file was renamed into place (its directory force failed) is taken out of
     * in/ before the failure is answered: otherwise the pool would see a whole file next to an error file, and a
     * restart would adopt it as delivered. If even that fails the file stays and counts as delivered: its data and
     * checksum file are on disk, and if a crash loses its name the request is still there and is staged again.
     */
    private void takeOutFailed(List<Delivery> batch) {
        for (Delivery d : batch) {
            if (d.inPlace && d.failure != null) {
                try {
                    in.delete(d.tracked.pnfsid);
                    d.inPlace = false;
                } catch (IOException e) {
                    LOG.warn("{}: cannot take {} out of {} after {}; counting it delivered: {}", name,
                            d.tracked.pnfsid, in.path(), d.failure.toString(), e.toString());
                    d.failure = null;
                }
            }
        }
    }

    private void deleteQuietly(String file) {
        try {
            in.delete(file);
        } catch (IOException e) {
            LOG.warn("{}: cannot remove {} from {}: {}", name, file, in.path(), e.toString());
        }
    }

    /** Forces every file, {@value #SYNC_THREADS} at a time; a failure is its owner's. */
    private void forceAll(List<String> files, List<Delivery> owners) {
        List<Future<?>> futures = new ArrayList<>(files.size());
        for (String f : files) {
            Callable<Void> force = () -> {
                in.forceFile(f);
                return null;
            };
            try {
                futures.add(syncers.submit(force));
            } catch (RejectedExecutionException e) {
                futures.add(CompletableFuture.failedFuture(new IOException("stopping: " + f + " not forced to disk")));
            }
        }
        for (int i = 0; i < futures.size(); i++) {
            try {
                futures.get(i).get();
            } catch (ExecutionException e) {
                Delivery d = owners.get(i);
                if (d.failure == null) {
                    d.failure = e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                owners.get(i).failure = new IOException("interrupted while forcing " + files.get(i) + " to disk");
            }
        }
    }

    /**
     * Forces in/ itself. If that fails nothing of the batch is known to be durable: every file still counted as
     * delivered fails, as when one file's commit failed.
     */
    private void forceDirectory(List<Delivery> batch) {
        try {
            in.forceSelf();
        } catch (IOException e) {
            LOG.warn("{}: forcing {} to disk failed: {}", name, in.path(), e.toString());
            for (Delivery d : batch) {
                if (d.failure == null) {
                    d.failure = e;
                }
            }
        }
    }

    /** Lets the batch being committed finish (at most a few seconds), then stops the threads. */
    void close() {
        committer.shutdown();
        try {
            committer.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        committer.shutdownNow();
        syncers.shutdownNow();
    }
}
