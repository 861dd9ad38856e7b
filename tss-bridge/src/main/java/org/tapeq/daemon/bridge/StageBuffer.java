package org.tapeq.daemon.bridge;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The space one directory's {@code in/} may hold: bytes are reserved per request before the scheduler reads
 * them and released when the pool has taken the file (or the stage ended without one). Thread-safe; the
 * scheduler asks on its loop, the bridge releases on its own thread.
 *
 * <p>A reservation is granted when the reserved total stays within the configured buffer and the filesystem
 * keeps its reserve free after the reservations not yet written are counted. When nothing is reserved one
 * request is always granted if the filesystem has room for it, so a file larger than the buffer still stages.
 * Free space is measured once a second by the bridge: the scheduler's loop asks, and must not wait for a
 * (perhaps hung network) filesystem.
 */
final class StageBuffer {

    private static final Logger LOG = LoggerFactory.getLogger(StageBuffer.class);

    private final String name;
    private final long capacity;
    private final long reserveBytes;
    private final FileStore store;
    private final Map<Long, Long> reserved = new HashMap<>();
    private final Set<Long> onDisk = new HashSet<>();
    private long total;
    /** Reserved bytes not yet written to in/ (the filesystem's free space does not show them yet). */
    private long unwritten;
    private long refusals;
    /** Free bytes on in/'s filesystem at the last {@link #measure()}. */
    private long usable;

    StageBuffer(String name, Path inDir, long capacity, long reserveBytes) throws IOException {
        this.name = name;
        this.capacity = capacity;
        this.reserveBytes = reserveBytes;
        this.store = Files.getFileStore(inDir);
        measure();
    }

    /** Bytes {@code ids} need beyond what they already hold. */
    synchronized long missing(Map<Long, Long> needs) {
        long sum = 0;
        for (Map.Entry<Long, Long> e : needs.entrySet()) {
            if (!reserved.containsKey(e.getKey())) {
                sum += e.getValue();
            }
        }
        return sum;
    }

    /** Measures the filesystem's free space; called by the bridge, never on the scheduler's loop. */
    void measure() {
        long free;
        try {
            free = store.getUsableSpace();
        } catch (IOException e) {
            LOG.warn("{}: cannot read the free space of in/: {}", name, e.toString());
            free = Long.MAX_VALUE; // unknown: the configured buffer alone limits
        }
        synchronized (this) {
            usable = free;
        }
    }

    /** Whether {@code bytes} more would fit. */
    synchronized boolean fits(long bytes) {
        if (bytes == 0) {
            return true;
        }
        boolean fits = total == 0
                ? usable >= bytes
                : total + bytes <= capacity && usable - unwritten - bytes >= reserveBytes;
        if (!fits) {
            refusals++;
        }
        return fits;
    }

    /** Records the reservations (after {@link #fits} said yes, under the caller's lock). */
    synchronized void take(Map<Long, Long> needs) {
        for (Map.Entry<Long, Long> e : needs.entrySet()) {
            if (reserved.putIfAbsent(e.getKey(), e.getValue()) == null) {
                total += e.getValue();
                unwritten += e.getValue();
            }
        }
    }

    /** Releases a request's reservation; true if it held one. */
    synchronized boolean release(long id) {
        Long bytes = reserved.remove(id);
        if (bytes == null) {
            return false;
        }
        total -= bytes;
        if (!onDisk.remove(id)) {
            unwritten -= bytes;
        }
        return true;
    }

    /** The request's file is now in in/ (the filesystem's free space counts it). */
    synchronized void written(long id) {
        Long bytes = reserved.get(id);
        if (bytes != null && onDisk.add(id)) {
            unwritten -= bytes;
        }
    }

    /** Counts a delivered file found at restart (its space is in use until the pool takes it). */
    synchronized void adopt(long id, long bytes) {
        take(Map.of(id, bytes));
        written(id);
    }

    synchronized long reservedBytes() {
        return total;
    }

    synchronized long refusals() {
        return refusals;
    }

    long capacity() {
        return capacity;
    }
}
