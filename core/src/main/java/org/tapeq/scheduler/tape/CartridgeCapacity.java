package org.tapeq.scheduler.tape;

/**
 * What a cartridge's own memory (MAM, the medium auxiliary memory LTO cartridges carry) says about its space:
 * the remaining and the maximum capacity of its partition, as the drive reports them after a load.
 *
 * @param remainingBytes space left for writing
 * @param maximumBytes   native capacity of the cartridge
 */
public record CartridgeCapacity(long remainingBytes, long maximumBytes) {
    public CartridgeCapacity {
        if (remainingBytes < 0 || maximumBytes <= 0 || remainingBytes > maximumBytes) {
            throw new IllegalArgumentException("remaining " + remainingBytes + " of maximum " + maximumBytes
                    + " bytes is not a capacity");
        }
    }
}
