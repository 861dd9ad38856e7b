package org.tapeq.scheduler.tape.scsi;

import java.util.List;
import java.util.Objects;

import org.tapeq.scheduler.model.DriveType;

/**
 * How to reach a library through {@code mtx}, {@code mt} and {@code dd} (the daemon reads these from
 * {@code library.scsi:} in its configuration).
 *
 * @param changer           the changer's device for {@code mtx -f} (an sg or sch device) on the tape host
 * @param drives            the drives, in any order
 * @param blockSize         bytes per tape block written (fixed; the last block of a tape file may be short)
 * @param commandPrefix     argv run before each command line (e.g. {@code ssh tapehost}); empty = local
 * @param robotTimeoutMillis limit of one {@code mtx} command (load, unload, status)
 * @param tapeTimeoutMillis  limit of one positioning command ({@code mt} rewind, seek, eod, offline ...)
 * @param dataStallMillis    a data transfer is abandoned when no byte moved for this long
 * @param dataMinRate        bytes per second a data transfer is expected to move at least: it is ended after
 *                           {@link #dataLimitMillis} (its size at this rate plus {@code dataStallMillis})
 */
public record ScsiSettings(String changer, List<Drive> drives, int blockSize, List<String> commandPrefix,
                           long robotTimeoutMillis, long tapeTimeoutMillis, long dataStallMillis, long dataMinRate) {

    public static final long DEFAULT_ROBOT_TIMEOUT_MILLIS = 10 * 60_000L;
    public static final long DEFAULT_TAPE_TIMEOUT_MILLIS = 30 * 60_000L;
    public static final long DEFAULT_DATA_STALL_MILLIS = 10 * 60_000L;
    /** 1 MiB/s: far below any tape drive (LTO-5 140 MB/s native), so only a hung transfer reaches the limit. */
    public static final long DEFAULT_DATA_MIN_RATE = 1L << 20;
    /** Bounds of {@link #dataMinRate}: 1 KiB/s .. 1 TiB/s. */
    public static final long MIN_DATA_MIN_RATE = 1L << 10;
    public static final long MAX_DATA_MIN_RATE = 1L << 40;

    /**
     * One drive.
     *
     * @param name         the drive's name in tapeq (catalog, status, logs)
     * @param device       its non-rewinding device, e.g. {@code /dev/nst0}
     * @param changerIndex its data transfer element number in {@code mtx} (0, 1, ...)
     * @param type         its generation as the operator configured it, or null: then the drive's INQUIRY tells
     *                     ({@link DriveIdentity})
     */
    public record Drive(String name, String device, int changerIndex, DriveType type) {
        public Drive {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(device, "device");
            if (changerIndex < 0) {
                throw new IllegalArgumentException("negative changer index " + changerIndex + " of drive " + name);
            }
        }

        /** A drive whose generation its INQUIRY tells. */
        public Drive(String name, String device, int changerIndex) {
            this(name, device, changerIndex, null);
        }
    }

    public ScsiSettings {
        Objects.requireNonNull(changer, "changer");
        drives = List.copyOf(drives);
        commandPrefix = List.copyOf(commandPrefix);
        if (drives.isEmpty()) {
            throw new IllegalArgumentException("no drives");
        }
        if (blockSize <= 0 || blockSize % 512 != 0) {
            throw new IllegalArgumentException("block size " + blockSize + " is not a positive multiple of 512");
        }
        if (robotTimeoutMillis <= 0 || tapeTimeoutMillis <= 0 || dataStallMillis <= 0) {
            throw new IllegalArgumentException("timeouts must be positive");
        }
        if (dataMinRate < MIN_DATA_MIN_RATE || dataMinRate > MAX_DATA_MIN_RATE) {
            throw new IllegalArgumentException("minimum data rate " + dataMinRate + " bytes/s is not between "
                    + MIN_DATA_MIN_RATE + " and " + MAX_DATA_MIN_RATE);
        }
    }

    /**
     * The limit of one data transfer of {@code bytes}: the time it takes at {@link #dataMinRate} plus
     * {@link #dataStallMillis} for the start (positioning, the first block), saturating instead of overflowing.
     */
    public long dataLimitMillis(long bytes) {
        long b = Math.max(0, bytes);
        long seconds = b / dataMinRate;
        if (seconds > Long.MAX_VALUE / 4000) {
            return Long.MAX_VALUE / 4;
        }
        return Math.min(Long.MAX_VALUE / 4, seconds * 1000 + Math.multiplyExact(b % dataMinRate, 1000L) / dataMinRate
                + dataStallMillis);
    }
}
