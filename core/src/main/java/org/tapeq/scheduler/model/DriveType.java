package org.tapeq.scheduler.model;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A tape drive generation and the cartridge media it can mount (read and write). LTO drives from generation 8 on
 * read and write their own generation and the one before only: an LTO-8 drive LTO-8 and LTO-7 (LTO-7 has no
 * {@link MediaType} here, tapeq does not model it), an LTO-9 drive LTO-9 and LTO-8; neither reads two generations
 * back (sources in docs/operations.md, "Migrate a library to new media").
 *
 * @param name  display name, e.g. {@code LTO-9}
 * @param media the media types it reads and writes
 */
public record DriveType(String name, List<MediaType> media) {

    public static final DriveType LTO8 = new DriveType("LTO-8", List.of(MediaType.LTO8));
    public static final DriveType LTO9 = new DriveType("LTO-9", List.of(MediaType.LTO9, MediaType.LTO8));
    public static final DriveType TS1160 = new DriveType("TS1160", List.of(MediaType.TS1160));

    public static final List<DriveType> KNOWN = List.of(LTO8, LTO9, TS1160);

    public DriveType {
        media = List.copyOf(media);
        if (media.isEmpty()) {
            throw new IllegalArgumentException("drive type " + name + " mounts no media");
        }
    }

    /**
     * Whether a cartridge of this media type (a {@link MediaType#byName} name) can be mounted: true for one of
     * its media, and for a null or unknown name (the drive itself then decides).
     */
    public boolean mounts(String mediaType) {
        if (mediaType == null) {
            return true;
        }
        return MediaType.byName(mediaType).map(media::contains).orElse(true);
    }

    /** The known type by name, case-insensitive, with or without the dash. */
    public static Optional<DriveType> byName(String name) {
        String key = name.toUpperCase(Locale.ROOT).replace("-", "");
        return KNOWN.stream().filter(d -> d.name.replace("-", "").equals(key)).findFirst();
    }
}
