package org.tapeq.scheduler.tape.sim;

import java.util.ArrayList;
import java.util.List;

import org.tapeq.scheduler.model.MediaType;

/** One cartridge: its geometry, what is recorded on it and where it is. Loop thread only. */
final class SimCartridge {

    final String barcode;
    final MediaType media;
    /** The true capacity: the nominal one with the physics profile's capacity offset. */
    final long capacity;
    /** Home slot, 1-based. */
    final int slot;
    final TapePhysics physics;
    final TrueWrapMap geometry;
    final TapeFileTable files;
    /** Name of the local data file of each tape file (BYTES mode), parallel to {@link #files}. */
    final List<String> dataFiles = new ArrayList<>();
    /** The drive it is in, or null if in its slot. */
    SimDrive drive;
    /** A robot move to or from a drive is under way. */
    boolean moving;
    /** Loaded at least once (no one-time calibration needed any more). */
    boolean calibrated;

    SimCartridge(String barcode, MediaType media, long nominalCapacity, int slot, long seed, int blockSize,
                 PhysicsProfile profile) {
        this.barcode = barcode;
        this.media = media;
        this.slot = slot;
        this.physics = TapePhysics.of(media, profile);
        this.geometry = physics.geometry(barcode, nominalCapacity, seed);
        this.capacity = geometry.capacity();
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
