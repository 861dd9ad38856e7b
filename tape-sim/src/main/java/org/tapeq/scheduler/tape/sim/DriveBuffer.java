package org.tapeq.scheduler.tape.sim;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.FlushCheck;

/**
 * The tape files a simulated drive holds in its buffer: appended with a buffered mark at the writer's request and
 * not flushed since ({@link SimDrive#heldFrom}). They are recorded on the cartridge as they are written, and cut
 * off it again when the buffer is lost (a reset, a failed drive, an unload before the flush), so a later read or
 * flush finds what a real drive would. Loop thread only.
 */
final class DriveBuffer {

    private static final Logger LOG = LoggerFactory.getLogger(DriveBuffer.class);

    private DriveBuffer() {
    }

    /**
     * The drive's buffer is gone ({@code why}): the tape files it held are cut off the cartridge and the store, end
     * of data is where the first of them started. Returns how many were lost.
     */
    static int lose(SimDrive drive, LibraryStore store, String why) {
        int from = drive.heldFrom;
        drive.heldFrom = -1;
        SimCartridge cartridge = drive.cartridge;
        if (from < 0 || cartridge == null || from >= cartridge.files.count()) {
            return 0;
        }
        TapeMarks.flushed(drive);
        TapeFileTable files = cartridge.files;
        int lost = files.count() - from;
        LOG.info("Drive {}: {}; tape files {} to {} of {}, appended with buffered marks and not flushed, are lost",
                drive.id, why, from, files.count() - 1, cartridge.barcode);
        List<String> names = new ArrayList<>(cartridge.dataFiles.subList(from, cartridge.dataFiles.size()));
        files.truncate(from);
        cartridge.dataFiles.subList(from, cartridge.dataFiles.size()).clear();
        try {
            store.commitTruncate(cartridge, from, names);
        } catch (IOException e) {
            LOG.warn("Could not record the tape files lost on {}: {}", cartridge.barcode, e.toString());
        }
        if (drive.position > files.eodBlock()) {
            drive.position = files.eodBlock();
            drive.head = cartridge.headAt(files.eodOffset());
        }
        return lost;
    }

    /** Why the tape files {@code expected} describes are not on the tape in {@code drive}, or null if they are. */
    static TapeFault notOnTape(SimDrive drive, FlushCheck expected) {
        TapeFileTable files = drive.cartridge.files;
        String barcode = drive.cartridge.barcode;
        int last = expected.lastFile();
        if (!barcode.equals(expected.barcode())) {
            return expected.check(drive.id, barcode, files.eodBlock());
        }
        if (last >= files.count()) { // the last held tape file is gone, whatever end of data a later write left
            return expected.lost(drive.id, "cartridge " + barcode + " with " + files.count() + " tape files, not "
                    + "tape file " + last + " (end of data at block " + files.eodBlock() + ")");
        }
        long end = files.startBlock(last) + files.blocksFor(files.bytes(last)) + 1;
        return end == expected.endOfData() ? null : expected.lost(drive.id, "cartridge " + barcode + " whose tape file "
                + last + " ends before block " + end + " (end of data at block " + files.eodBlock() + ")");
    }
}
