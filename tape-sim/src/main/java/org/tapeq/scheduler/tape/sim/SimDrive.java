package org.tapeq.scheduler.tape.sim;

/** One drive and the state of the tape in it. Loop thread only. */
final class SimDrive {

    final String id;
    final int index;
    /** Its generation, which decides the media it mounts; null: any. */
    final org.tapeq.scheduler.model.DriveType type;
    SimCartridge cartridge;
    /** The cartridge was unloaded but the robot failed to take it away; only unmount is possible. */
    boolean ejected;
    /** An operation is running. */
    boolean busy;
    /** Logical block address ({@code mt tell}). */
    long position;
    /** Physical position of the head. */
    Head head;
    /** Tape files and bytes written since the last flush, with buffered tape marks ({@link TapeMarks}). */
    int unflushedFiles;
    long unflushedBytes;
    /**
     * The first tape file appended with a buffered mark at the writer's request ({@code appendBuffered}) and not
     * flushed since, or -1: it and those after it are lost if the drive is reset or unloads before the flush.
     */
    int heldFrom = -1;

    SimDrive(String id, int index, org.tapeq.scheduler.model.DriveType type) {
        this.id = id;
        this.index = index;
        this.type = type;
    }

    String describe() {
        return cartridge == null ? id + " (empty)" : id + " with " + cartridge.barcode;
    }
}
