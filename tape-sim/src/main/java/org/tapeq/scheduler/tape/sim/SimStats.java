package org.tapeq.scheduler.tape.sim;

import java.util.Map;

/**
 * A snapshot of what a {@link SimulatedLibrary} did, in modelled (loop) time. Counts cover completed operations;
 * times are charged when an operation completes, to the drive that ran it.
 *
 * @param mounts             successful mounts
 * @param unmounts           successful unmounts
 * @param locates            successful locates ({@code locate} and {@code locateFile})
 * @param reads              successful reads
 * @param appends            successful appends
 * @param labels             successful label writes
 * @param failedOps          operations that completed with a fault
 * @param bytesRead          bytes delivered by reads (counted in both data modes)
 * @param bytesSkipped       bytes streamed over by reads' {@code skipBytes} or to finish a partly read block
 * @param bytesWritten       bytes recorded on tape (including partial files left by a full tape)
 * @param filemarks          filemarks written
 * @param locateMillis       time spent positioning, over all drives (includes positioning to EOD before appends)
 * @param rewindMillis       time spent rewinding before unloads
 * @param robotMoves         robot moves attempted (mounts and unmounts, failed ones included)
 * @param robotWaitMillis    time drives waited for a free robot arm
 * @param mountsPerCartridge successful mounts by barcode
 * @param drives             busy time by drive id
 */
public record SimStats(long mounts, long unmounts, long locates, long reads, long appends, long labels,
                       long failedOps, long bytesRead, long bytesSkipped, long bytesWritten, long filemarks,
                       long locateMillis, long rewindMillis, long robotMoves, long robotWaitMillis,
                       Map<String, Long> mountsPerCartridge, Map<String, DriveStats> drives) {

    public SimStats {
        mountsPerCartridge = Map.copyOf(mountsPerCartridge);
        drives = Map.copyOf(drives);
    }

    /**
     * Busy time of one drive by kind of work, in milliseconds. Mount time runs from the request (including the
     * wait for a robot arm) to ready; unmount time from the request to the cartridge back in its slot.
     *
     * @param faultMillis time spent in operations that failed
     * @param operations  operations completed, failed ones included
     * @param bytesRead    bytes this drive delivered from tape
     * @param bytesWritten bytes this drive wrote to tape (labels included)
     */
    public record DriveStats(long mountMillis, long unmountMillis, long locateMillis, long readMillis,
                             long writeMillis, long faultMillis, long operations, long bytesRead,
                             long bytesWritten) {

        public long busyMillis() {
            return mountMillis + unmountMillis + locateMillis + readMillis + writeMillis + faultMillis;
        }
    }

    /** Locate time of one drive, or 0 if unknown. */
    public long locateMillis(String drive) {
        DriveStats stats = drives.get(drive);
        return stats == null ? 0 : stats.locateMillis();
    }

    /** Mounts of one cartridge. */
    public long mounts(String barcode) {
        return mountsPerCartridge.getOrDefault(barcode, 0L);
    }

    /** A multi-line human-readable summary, drives in name order. */
    public String format() {
        StringBuilder out = new StringBuilder();
        out.append(String.format("ops: %d mounts, %d unmounts, %d locates, %d reads, %d appends, %d labels,"
                + " %d failed%n", mounts, unmounts, locates, reads, appends, labels, failedOps));
        out.append(String.format("bytes: %d read, %d skipped, %d written, %d filemarks%n",
                bytesRead, bytesSkipped, bytesWritten, filemarks));
        out.append(String.format("time: %.1f s locate, %.1f s rewind; robot %d moves, %.1f s waiting%n",
                locateMillis / 1e3, rewindMillis / 1e3, robotMoves, robotWaitMillis / 1e3));
        drives.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> {
            DriveStats d = e.getValue();
            out.append(String.format("  %s: busy %.1f s (mount %.1f, unmount %.1f, locate %.1f, read %.1f, write %.1f,"
                            + " fault %.1f), %d ops%n", e.getKey(), d.busyMillis() / 1e3, d.mountMillis() / 1e3,
                    d.unmountMillis() / 1e3, d.locateMillis() / 1e3, d.readMillis() / 1e3, d.writeMillis() / 1e3,
                    d.faultMillis() / 1e3, d.operations()));
        });
        return out.toString();
    }
}
