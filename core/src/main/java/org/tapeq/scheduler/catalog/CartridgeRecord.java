package org.tapeq.scheduler.catalog;

/**
 * A cartridge as recorded in the catalog.
 *
 * @param family            tape family it is labelled for, or null
 * @param usedBytes         bytes of tape files written (live and dead)
 * @param reclaimableBytes  bytes of deleted or superseded files, reclaimable by repacking
 * @param tapeFiles         tape files written after the label
 * @param lastMount         loop time of the last mount, or 0
 * @param disabled          taken out of use by an administrator
 * @param reason            why it is in its state or disabled, for status; may be null
 */
public record CartridgeRecord(String barcode, String mediaType, String family, CartridgeState state,
                              long capacityBytes, long usedBytes, long reclaimableBytes, int tapeFiles,
                              long mountCount, long lastMount, boolean disabled, String reason) {

    public long freeBytes() {
        return Math.max(0, capacityBytes - usedBytes);
    }

    public CartridgeRecord withState(CartridgeState newState, String newReason) {
        return new CartridgeRecord(barcode, mediaType, family, newState, capacityBytes, usedBytes,
                reclaimableBytes, tapeFiles, mountCount, lastMount, disabled, newReason);
    }

    public CartridgeRecord withDisabled(boolean newDisabled, String newReason) {
        return new CartridgeRecord(barcode, mediaType, family, state, capacityBytes, usedBytes, reclaimableBytes,
                tapeFiles, mountCount, lastMount, newDisabled, newReason);
    }
}
