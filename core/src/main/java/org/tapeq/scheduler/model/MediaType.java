package org.tapeq.scheduler.model;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Nominal figures of a cartridge type and its drive, from vendor specifications
 * (../shared/reference/tape-and-anchors.md). The scheduler estimates costs from these; the simulated library
 * builds its own physical model from them. Values marked "assumed" below are not in the reference.
 *
 * @param name              display name, e.g. {@code LTO-9}
 * @param barcodeSuffix     the two-character media identifier at the end of a barcode, e.g. {@code L9}
 * @param capacityBytes     native capacity
 * @param rateBytesPerSecond native streaming rate
 * @param wraps             number of wraps (serpentine passes)
 * @param bands             number of data bands the wraps are grouped in
 * @param loadMillis        load to ready
 * @param unloadMillis      unload (rewound tape to ejected)
 * @param averageLocateMillis average locate from the load point
 * @param averageRewindMillis average rewind
 */
public record MediaType(String name, String barcodeSuffix, long capacityBytes, long rateBytesPerSecond, int wraps,
                        int bands, long loadMillis, long unloadMillis, long averageLocateMillis,
                        long averageRewindMillis) {

    private static final long TB = 1_000_000_000_000L;
    private static final long MB = 1_000_000L;

    public static final MediaType LTO8 = new MediaType("LTO-8", "L8", 12 * TB, 360 * MB, 208, 4,
            15_000, 24_000, 50_000 /* assumed */, 60_000 /* assumed */);
    public static final MediaType LTO9 = new MediaType("LTO-9", "L9", 18 * TB, 400 * MB, 280, 4,
            17_000, 30_000, 45_000, 55_000);
    public static final MediaType TS1160 = new MediaType("TS1160", "JE", 20 * TB, 400 * MB,
            272 /* assumed */, 4, 15_000 /* assumed */, 25_000 /* assumed */, 40_000 /* assumed */,
            50_000 /* assumed */);

    public static final List<MediaType> KNOWN = List.of(LTO8, LTO9, TS1160);

    public MediaType {
        if (capacityBytes <= 0 || rateBytesPerSecond <= 0 || wraps <= 0 || bands <= 0 || wraps % 2 != 0) {
            throw new IllegalArgumentException("invalid media type " + name);
        }
    }

    /** Bytes recorded on one wrap. */
    public long bytesPerWrap() {
        return capacityBytes / wraps;
    }

    /** Milliseconds to stream the given number of bytes at native rate. */
    public long streamMillis(long bytes) {
        return (long) (bytes * 1000d / rateBytesPerSecond);
    }

    /** The known type by name (case-insensitive, with or without the dash) or barcode suffix. */
    public static Optional<MediaType> byName(String nameOrSuffix) {
        String key = nameOrSuffix.toUpperCase(Locale.ROOT).replace("-", "");
        return KNOWN.stream()
                .filter(m -> m.name.replace("-", "").equals(key) || m.barcodeSuffix.equals(key))
                .findFirst();
    }

    /** The type named by the last two characters of a barcode (e.g. {@code VTL001L9}), if known. */
    public static Optional<MediaType> fromBarcode(String barcode) {
        if (barcode.length() < 2) {
            return Optional.empty();
        }
        return byName(barcode.substring(barcode.length() - 2));
    }
}
