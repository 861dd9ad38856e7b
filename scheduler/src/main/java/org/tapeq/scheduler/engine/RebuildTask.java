package org.tapeq.scheduler.engine;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.CartridgeState;
import org.tapeq.scheduler.engine.drive.DriveRunner;
import org.tapeq.scheduler.engine.store.CatalogWriter;
import org.tapeq.scheduler.format.Manifest;
import org.tapeq.scheduler.format.ManifestReader;
import org.tapeq.scheduler.format.TapeLabel;
import org.tapeq.scheduler.model.AggregateRecord;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.FileRecord;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.Completion;

/**
 * Rebuilds the catalog entries of one cartridge from the cartridge alone: its label gives the family, and
 * the manifest at the head of each tape file gives the members and their offsets. Only the first blocks of
 * each tape file are read. A tape file without a readable manifest, or shorter than its manifest says (a write
 * cut short by a crash: fewer bytes than the manifest's length within the bytes read, or the next tape file
 * starting before the manifest's last block), is skipped and reported. A file found in several tape files
 * keeps the last one (the latest write). A cartridge a repack emptied ({@code EMPTY}) is never made appendable
 * here: it stays EMPTY if nothing on it ends up live, else it becomes FULL. Manifests are parsed on the I/O executor; the catalog's contents of
 * the cartridge are replaced on the catalog writer; the rebuild is done when that is.
 */
final class RebuildTask extends CartridgeTask<Scheduler.RebuildReport> {

    private static final Logger LOG = LoggerFactory.getLogger(RebuildTask.class);

    private final List<AggregateRecord> aggregates = new ArrayList<>();
    private final List<FileRecord> files = new ArrayList<>();
    private final List<String> skipped = new ArrayList<>();
    private String family;
    private long used;
    private Pending previous;

    RebuildTask(Engine engine, String barcode) {
        super(engine, barcode);
    }

    @Override
    public void run(DriveRunner drive) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        engine.library.locate(drive.id(), 0, step(drive, v ->
                engine.library.read(drive.id(), 0, DriveRunner.LABEL_BYTES, () -> buf, step(drive, n -> {
                    try {
                        family = TapeLabel.parseFor(buf.toByteArray(), barcode).family();
                    } catch (TapeFault f) {
                        fail(drive, f);
                        return;
                    }
                    next(drive, 1);
                }))));
    }

    private void next(DriveRunner drive, int fileNumber) {
        engine.library.locateFile(drive.id(), fileNumber, new Completion<>() {
            @Override
            public void succeeded(Long startBlock) {
                previousEndsAt(startBlock);
                ByteArrayOutputStream buf = new ByteArrayOutputStream();
                engine.library.read(drive.id(), 0, DriveRunner.MANIFEST_BYTES, () -> buf, step(drive, n ->
                        // parsing a manifest of 10 000 members takes a while: off the loop, like a flush's checks
                        engine.io.execute(() -> {
                            Parsed parsed = parse(buf.toByteArray(), n, fileNumber, startBlock);
                            engine.loop.execute(() -> {
                                if (parsed.pending() != null) {
                                    previous = parsed.pending();
                                } else {
                                    skipped.add("tape file " + fileNumber + ": " + parsed.problem());
                                    LOG.warn("Rebuild of {}: tape file {} has no readable manifest or is incomplete:"
                                            + " {}", barcode, fileNumber, parsed.problem());
                                }
                                next(drive, fileNumber + 1);
                            });
                        })));
            }

            @Override
            public void failed(TapeFault fault) {
                if (fault.kind() == FaultKind.NOT_FOUND) {
                    // the last tape file: checked only by its length as far as the manifest read reached
                    previousEndsAt(-1);
                    finish(drive, fileNumber - 1);
                } else {
                    fail(drive, fault);
                }
            }
        });
    }

    /**
     * Keeps the previous tape file's entries if the next tape file starts where the previous manifest says it
     * ends ({@code -1}: no next file to compare with); a tape file that ends early was cut short.
     */
    private void previousEndsAt(long nextStartBlock) {
        Pending p = previous;
        previous = null;
        if (p == null) {
            return;
        }
        if (nextStartBlock >= 0 && nextStartBlock != p.endBlock) {
            skipped.add("tape file " + p.fileNumber + ": cut short: the next tape file starts at block "
                    + nextStartBlock + ", the manifest says it ends at block " + p.endBlock);
            LOG.warn("Rebuild of {}: {}", barcode, skipped.get(skipped.size() - 1));
            return;
        }
        aggregates.add(p.aggregate);
        files.addAll(p.files);
        used += p.length;
    }

    /** The manifest at the head of a tape file, as a {@link Pending}, or what is wrong with it. */
    private Parsed parse(byte[] head, long n, int fileNumber, long startBlock) {
        try {
            Manifest m = ManifestReader.read(new ByteArrayInputStream(head), DriveRunner.MANIFEST_BYTES);
            int bs = m.blockSize();
            if (n < Math.min(m.length(), DriveRunner.MANIFEST_BYTES)) {
                throw new IOException("cut short: " + n + " bytes on tape, the manifest says " + m.length()
                        + " (a write interrupted by a crash)");
            }
            return new Parsed(new Pending(fileNumber, m.toAggregateRecord(barcode, fileNumber, startBlock, bs,
                    m.createdMillis()), m.toFileRecords(barcode, fileNumber, startBlock, bs), m.length(),
                    startBlock + m.blockCount(bs) + 1), null);
        } catch (IOException | RuntimeException e) {
            return new Parsed(null, e.getMessage());
        }
    }

    private record Parsed(Pending pending, String problem) {
    }

    /** A tape file read but not yet kept: kept once the next one is found where it should start. */
    private record Pending(int fileNumber, AggregateRecord aggregate, List<FileRecord> files, long length,
                           long endBlock) {
    }

    private void finish(DriveRunner drive, int tapeFiles) {
        // The latest tape file wins for a pnfsid written twice.
        java.util.Map<String, FileRecord> latest = new java.util.LinkedHashMap<>();
        long live = 0;
        for (FileRecord f : files) {
            latest.put(f.pnfsid(), f);
        }
        for (FileRecord f : latest.values()) {
            live += f.size();
        }
        CartridgeRecord c = engine.cartridges.get(barcode);
        long nominal = c != null ? c.capacityBytes() : engine.cartridges.mediaOf(barcode).capacityBytes();
        // The cartridge's memory knows what is left (a cartridge closed at early warning stays closed); without
        // it the catalog's record, then the media type's nominal capacity.
        long capacity = engine.library.capacity(drive.id())
                .map(cap -> Math.min(cap.maximumBytes(), used + cap.remainingBytes())).orElse(nominal);
        // An emptied cartridge stays closed: EMPTY while nothing on it ends up live, FULL if something does (below)
        boolean wasEmpty = c != null && c.state() == CartridgeState.EMPTY;
        CartridgeState state = wasEmpty ? CartridgeState.EMPTY : (c != null && c.state() == CartridgeState.FULL)
                || engine.cartridges.tooLittleLeft(capacity - used) ? CartridgeState.FULL : CartridgeState.APPENDABLE;
        CartridgeRecord rebuilt = new CartridgeRecord(barcode, c != null ? c.mediaType()
                : engine.cartridges.mediaOf(barcode).name(), family, state, capacity, used, used - live, tapeFiles,
                c != null ? c.mountCount() : 1, c != null ? c.lastMount() : engine.loop.now(),
                c != null && c.disabled(), null);
        List<FileRecord> kept = new ArrayList<>(latest.values());
        long liveBytes = live;
        engine.writer.submit(CatalogWriter.Kind.REPLACE, () -> {
            engine.catalog.replaceCartridgeContents(rebuilt, aggregates, kept);
            if (wasEmpty && !engine.catalog.files(barcode).isEmpty()) {
                // files on tape the catalog had moved nowhere else are live here again: readable, never written
                CartridgeRecord full = rebuilt.withState(CartridgeState.FULL, "rebuilt from tape: holds live files");
                engine.catalog.putCartridge(full);
                return full;
            }
            return rebuilt;
        }, catalogStep(drive, "replace the contents", (CartridgeRecord stored) -> {
            engine.cartridges.keep(stored);
            engine.aggregator.forgetDatasets();
            LOG.info("Rebuilt {} from tape: family {}, {} tape files, {} files, {} skipped", barcode, family,
                    tapeFiles, kept.size(), skipped.size());
            succeed(drive, new Scheduler.RebuildReport(barcode, family, tapeFiles, kept.size(), liveBytes,
                    List.copyOf(skipped)));
        }));
    }
}
