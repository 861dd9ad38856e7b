package org.tapeq.scheduler.tape.sim;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Accumulates {@link SimStats}; updated on the loop thread, snapshots from any thread. */
final class StatsRecorder {

    private static final int MOUNT = 0;
    private static final int UNMOUNT = 1;
    private static final int LOCATE = 2;
    private static final int READ = 3;
    private static final int WRITE = 4;
    private static final int FAULT = 5;
    private static final int OPS = 6;
    private static final int BYTES_READ = 7;
    private static final int BYTES_WRITTEN = 8;

    private final List<String> driveIds;
    private final long[][] perDrive;
    private final Map<String, Long> mountsPerCartridge = new HashMap<>();
    private long mounts;
    private long unmounts;
    private long locates;
    private long reads;
    private long appends;
    private long labels;
    private long failedOps;
    private long bytesRead;
    private long bytesSkipped;
    private long bytesWritten;
    private long filemarks;
    private long locateMillis;
    private long rewindMillis;
    private long robotMoves;
    private long robotWaitMillis;

    StatsRecorder(List<String> driveIds) {
        this.driveIds = List.copyOf(driveIds);
        this.perDrive = new long[driveIds.size()][BYTES_WRITTEN + 1];
    }

    synchronized void robotMove(long waitMillis) {
        robotMoves++;
        robotWaitMillis += waitMillis;
    }

    synchronized void mounted(int drive, String barcode, long millis) {
        mounts++;
        mountsPerCartridge.merge(barcode, 1L, Long::sum);
        charge(drive, MOUNT, millis);
    }

    synchronized void rewound(long millis) {
        rewindMillis += millis;
    }

    synchronized void unmounted(int drive, long millis) {
        unmounts++;
        charge(drive, UNMOUNT, millis);
    }

    synchronized void located(int drive, long millis) {
        locates++;
        chargeLocate(drive, millis);
        perDrive[drive][OPS]++;
    }

    synchronized void read(int drive, long millis, long delivered, long skipped) {
        reads++;
        bytesRead += delivered;
        bytesSkipped += skipped;
        perDrive[drive][BYTES_READ] += delivered;
        charge(drive, READ, millis);
    }

    /** A write that reached the tape: its positioning, streaming and filemark time. */
    synchronized void wrote(int drive, boolean label, long locate, long write, long bytes, int marks, boolean ok) {
        if (ok) {
            if (label) {
                labels++;
            } else {
                appends++;
            }
        } else {
            failedOps++;
        }
        chargeLocate(drive, locate);
        perDrive[drive][WRITE] += write;
        perDrive[drive][OPS]++;
        bytesWritten += bytes;
        perDrive[drive][BYTES_WRITTEN] += bytes;
        filemarks += marks;
    }

    /** A flush of the drive's buffer (buffered tape marks): charged as write time. */
    synchronized void flushed(int drive, long millis) {
        perDrive[drive][WRITE] += millis;
        perDrive[drive][OPS]++;
    }

    /** An operation that failed; its time is charged as fault time unless positioning was {@code located}. */
    synchronized void failed(int drive, long millis, long located) {
        failedOps++;
        if (drive >= 0) {
            chargeLocate(drive, located);
            charge(drive, FAULT, millis - located);
        }
    }

    private void chargeLocate(int drive, long millis) {
        locateMillis += millis;
        perDrive[drive][LOCATE] += millis;
    }

    private void charge(int drive, int kind, long millis) {
        perDrive[drive][kind] += millis;
        perDrive[drive][OPS]++;
    }

    synchronized SimStats snapshot() {
        Map<String, SimStats.DriveStats> drives = new LinkedHashMap<>();
        for (int i = 0; i < driveIds.size(); i++) {
            long[] d = perDrive[i];
            drives.put(driveIds.get(i), new SimStats.DriveStats(d[MOUNT], d[UNMOUNT], d[LOCATE], d[READ], d[WRITE],
                    d[FAULT], d[OPS], d[BYTES_READ], d[BYTES_WRITTEN]));
        }
        return new SimStats(mounts, unmounts, locates, reads, appends, labels, failedOps, bytesRead, bytesSkipped,
                bytesWritten, filemarks, locateMillis, rewindMillis, robotMoves, robotWaitMillis,
                mountsPerCartridge, drives);
    }
}
