package org.tapeq.scheduler.tape;

/**
 * A library whose robot moves and drive loads can be asked apart, for a site where one host drives the shared
 * changer and each drive's own host loads and unloads it (docs/architecture.md, "Who drives the changer"). A
 * {@link TapeLibrary#mount} is then {@link #robotLoad} on the changer's host followed by {@link #load} on the
 * drive's; a {@link TapeLibrary#unmount} is {@link #unload} on the drive's host followed by {@link #robotUnload} on
 * the changer's. Every completion runs once, on the library's loop, like those of {@link TapeLibrary}.
 */
public interface RobotMoves {

    /**
     * The robot moves the cartridge from its slot into the empty drive (which may be served by another host); the
     * drive is not asked. Fails {@code ROBOT} when the cartridge is not in a slot (in another drive: never two),
     * {@code DRIVE} when the drive already holds one.
     */
    void robotLoad(String drive, String barcode, Completion<Void> done);

    /**
     * The robot returns the cartridge in the drive to a free slot; the drive must have ejected it ({@link #unload})
     * first. Fails {@code DRIVE} when the drive is empty.
     */
    void robotUnload(String drive, Completion<Void> done);

    /**
     * The drive threads the cartridge {@code barcode} the robot put into it and waits until it is ready at block 0
     * (a first load calibrates). The robot is not asked; on failure the cartridge is still in the drive.
     */
    void load(String drive, String barcode, Completion<Void> done);

    /** The drive rewinds and ejects its cartridge, which stays in the drive for the robot. The robot is not asked. */
    void unload(String drive, Completion<Void> done);
}
