package org.tapeq.scheduler.tape.sim;

import java.util.ArrayList;
import java.util.List;

import org.tapeq.scheduler.model.MediaType;

/** One cartridge: its geometry, what is recorded on it and where it is. Loop thread only. */
final class SimCartridge {

    final String barcode;
    final MediaType media;
    final long capacity;
    /** Home slot, 1-based. */
    final int slot;
    final TapePhysics physics;
    final TapeGeometry geometry;
    final TapeFileTable files;
    /** Name of the local data file of each tape file (BYTES mode), parallel to {@link #files}. */
    final List<String> dataFiles = new ArrayList<>();
    /** The drive it is in, or null if in its slot. */
    SimDrive drive;
    /** A robot move to or from a drive is under way. */
    boolean moving;
    /** Loaded at least once (no one-time calibration needed any more). */
    boolean calibrated;

    SimCartridge(String barcode, MediaType media, long capacity, int slot, long seed, int blockSize) {
        this.barcode = barcode;
        this.media = media;
        this.capacity = capacity;
        this.slot = slot;
        this.physics = TapePhysics.of(media);
        this.geometry = physics.geometry(barcode, capacity, seed);
        this.files = new TapeFileTable(blockSize);
    }

    /** The head position at a byte offset of this cartridge. */
    Head headAt(long offset) {
        return physics.headAt(geometry, offset);
    }

    String location() {
        return drive == null ? "slot:" + slot : "drive:" + drive.id;
    }
}
