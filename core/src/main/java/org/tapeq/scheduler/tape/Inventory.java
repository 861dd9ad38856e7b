package org.tapeq.scheduler.tape;

import java.util.List;

/** What a library holds: its drives and its cartridges. */
public record Inventory(List<Drive> drives, List<Cartridge> cartridges) {

    public Inventory {
        drives = List.copyOf(drives);
        cartridges = List.copyOf(cartridges);
    }

    /**
     * @param id            drive name used in every operation
     * @param loadedBarcode the cartridge in it, or null
     * @param online        false if the drive is known to be unusable
     * @param unreachable   null, or why the drive cannot be asked now (its data mover does not answer): not the
     *                      drive's fault, it comes back when its mover does; loadedBarcode is then where the
     *                      changer sees a cartridge
     */
    public record Drive(String id, String loadedBarcode, boolean online, String unreachable) {

        public Drive(String id, String loadedBarcode, boolean online) {
            this(id, loadedBarcode, online, null);
        }
    }

    /**
     * @param barcode   volume label on the cartridge
     * @param mediaType media type name (see {@link org.tapeq.scheduler.model.MediaType#byName}), or null if unknown
     * @param location  {@code slot:N}, {@code ie:N} (import/export) or {@code drive:ID}
     */
    public record Cartridge(String barcode, String mediaType, String location) {
    }
}
