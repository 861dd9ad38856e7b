package org.tapeq.simulator;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.CartridgeState;
import org.tapeq.scheduler.catalog.Catalog;
import org.tapeq.scheduler.model.AggregateRecord;
import org.tapeq.scheduler.model.FileRecord;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.tape.WrittenFile;
import org.tapeq.scheduler.tape.sim.SimulatedLibrary;
import org.tapeq.workload.FileSpec;
import org.tapeq.workload.TapeImage;

/**
 * Puts the workload's starting tape contents into a size-only simulated library and the catalog, as if tapeq had
 * written them: tape file 0 is a one-block label, each aggregate is one tape file with a one-block manifest
 * followed by its members back to back, and filler tape files are other data the catalog does not list. Each
 * cartridge's aggregates are committed in one catalog transaction.
 */
final class TapeLoader {

    /** Where a catalogued file lies: what the physical bound needs. */
    record Location(String barcode, long startBlock, long endBlock, long size) {
    }

    private TapeLoader() {
    }

    /** Loads every image; returns the location of every catalogued file by pnfsid. */
    static Map<String, Location> load(List<TapeImage> tapes, MediaType media, SimulatedLibrary library,
                                      Catalog catalog, long now, long fullMargin) {
        int bs = library.blockSize();
        Map<String, Location> locations = new HashMap<>();
        for (TapeImage tape : tapes) {
            library.preload(tape.barcode(), bs);
            // the catalog counts the aggregates' bytes as they are committed; the label and fillers are entered here
            long fillerBytes = 0;
            int fillers = 0;
            for (TapeImage.TapeFile file : tape.files()) {
                if (file.members().isEmpty()) {
                    fillerBytes += file.fillerBytes();
                    fillers++;
                }
            }
            catalog.putCartridge(new CartridgeRecord(tape.barcode(), media.name(), tape.family(),
                    CartridgeState.APPENDABLE, media.capacityBytes(), bs + fillerBytes, 0, 1 + fillers, 0, 0, false,
                    null));
            long used = bs;
            int tapeFiles = 1;
            List<Catalog.Written> written = new ArrayList<>();
            for (TapeImage.TapeFile file : tape.files()) {
                if (file.members().isEmpty()) {
                    library.preload(tape.barcode(), file.fillerBytes());
                    used += file.fillerBytes();
                    tapeFiles++;
                    continue;
                }
                long length = bs;
                for (FileSpec f : file.members()) {
                    length += f.size();
                }
                WrittenFile tapeFile = library.preload(tape.barcode(), length);
                List<FileRecord> members = new ArrayList<>(file.members().size());
                long offset = bs;
                for (FileSpec f : file.members()) {
                    long block = tapeFile.startBlock() + offset / bs;
                    long end = tapeFile.startBlock() + (offset + f.size() + bs - 1) / bs;
                    members.add(new FileRecord(f.pnfsid(), tape.barcode(), tapeFile.fileNumber(), block, offset,
                            f.size(), null, f.storageClass(), f.path(), f.dataset(), -1));
                    locations.put(f.pnfsid(), new Location(tape.barcode(), block, end, f.size()));
                    offset += f.size();
                }
                FileSpec first = file.members().get(0);
                written.add(new Catalog.Written(new AggregateRecord(tape.barcode(), tapeFile.fileNumber(),
                        tapeFile.startBlock(), tapeFile.blockCount(), bs, length, members.size(), tape.family(),
                        first.dataset(), now), members));
                used += length;
                tapeFiles++;
            }
            catalog.commitAggregates(written);
            boolean full = tape.isFull() || media.capacityBytes() - used < fullMargin;
            catalog.putCartridge(new CartridgeRecord(tape.barcode(), media.name(), tape.family(),
                    full ? CartridgeState.FULL : CartridgeState.APPENDABLE, media.capacityBytes(), used, 0, tapeFiles,
                    0, 0, false, full ? "full" : null));
        }
        return locations;
    }
}
