package org.tapeq.scheduler.engine.dispatch;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.engine.queue.Cartridges;
import org.tapeq.scheduler.model.DriveType;
import org.tapeq.scheduler.tape.TapeLibrary;

/**
 * Which drive can mount which cartridge: the drive's generation as the library reports it ({@link
 * TapeLibrary#driveType}) against the cartridge's media type in its record. A drive of unknown generation, or a
 * cartridge of unknown media, fits (the library then decides). The dispatcher asks it before every mount it
 * chooses, so a cartridge never goes to a drive that cannot read it. Loop thread only.
 */
public final class MediaFit {

    private final TapeLibrary library;
    private final Cartridges cartridges;
    /** Asked once per drive: the generation of a drive does not change while the engine runs. */
    private final Map<String, Optional<DriveType>> types = new HashMap<>();

    public MediaFit(TapeLibrary library, Cartridges cartridges) {
        this.library = library;
        this.cartridges = cartridges;
    }

    /** Whether the drive can mount the cartridge (unknown cartridge: true, its own checks refuse it). */
    public boolean fits(String drive, String barcode) {
        CartridgeRecord c = cartridges.get(barcode);
        return c == null || fits(drive, c);
    }

    public boolean fits(String drive, CartridgeRecord c) {
        return type(drive).map(t -> t.mounts(c.mediaType())).orElse(true);
    }

    /** The drive's generation, if known. */
    public Optional<DriveType> type(String drive) {
        return types.computeIfAbsent(drive, library::driveType);
    }
}
