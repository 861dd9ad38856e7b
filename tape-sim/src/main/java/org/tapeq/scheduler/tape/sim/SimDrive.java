package org.tapeq.scheduler.tape.sim;

/** One drive and the state of the tape in it. Loop thread only. */
final class SimDrive {

    final String id;
    final int index;
    SimCartridge cartridge;
    /** The cartridge was unloaded but the robot failed to take it away; only unmount is possible. */
    boolean ejected;
    /** An operation is running. */
    boolean busy;
    /** Logical block address ({@code mt tell}). */
    long position;
    /** Physical position of the head. */
    Head head;

    SimDrive(String id, int index) {
        this.id = id;
        this.index = index;
    }

    String describe() {
        return cartridge == null ? id + " (empty)" : id + " with " + cartridge.barcode;
    }
}
