package org.tapeq.scheduler.tape.scsi;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.model.DriveType;

/**
 * Finds a drive's generation once, at the library's first inventory (on the runner's threads, never on the loop):
 * the type the operator configured for the drive ({@code type:} of the drive in {@code library.scsi.drives}),
 * otherwise the one its INQUIRY product identification names ({@link DriveIdentity}). A drive whose product tapeq
 * does not know, or that does not answer the INQUIRY, stays of unknown generation (any cartridge may go to it, as
 * before drives had generations), with one warning naming the drive and what it answered.
 */
final class DriveGeneration {

    private static final Logger LOG = LoggerFactory.getLogger(DriveGeneration.class);

    private DriveGeneration() {
    }

    /** Sets {@link DriveState#type} of {@code d}, asking the drive only if its type is not configured. */
    static void find(DriveState d, DriveProbe probe) {
        DriveType configured = d.config.type();
        if (configured != null) {
            d.type = configured;
            LOG.info("Drive {} ({}): {} as configured", d.name(), d.device(), configured.name());
            return;
        }
        DriveIdentity id;
        try {
            id = probe.identity(d.device());
        } catch (IllegalArgumentException e) {
            LOG.warn("Drive {} ({}): its generation is unknown, so any cartridge may be mounted in it: the INQUIRY"
                    + " failed ({}); set type: for it in library.scsi.drives", d.name(), d.device(), e.getMessage());
            return;
        }
        d.type = id.type().orElse(null);
        if (d.type == null) {
            LOG.warn("Drive {} ({}): its generation is unknown, so any cartridge may be mounted in it: product {} is"
                    + " no generation tapeq knows ({}); set type: for it in library.scsi.drives", d.name(),
                    d.device(), id, DriveType.KNOWN.stream().map(DriveType::name).toList());
        } else {
            LOG.info("Drive {} ({}): {}, {}", d.name(), d.device(), id, d.type.name());
        }
    }
}
