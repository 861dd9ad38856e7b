package org.tapeq.scheduler.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.CartridgeState;
import org.tapeq.scheduler.catalog.jdbc.JdbcCatalog;
import org.tapeq.scheduler.engine.lifecycle.RelabelReport;
import org.tapeq.scheduler.model.FileRecord;
import org.tapeq.scheduler.tape.ByteSink;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.ForwardingLibrary;
import org.tapeq.scheduler.tape.TapeFileSource;
import org.tapeq.scheduler.tape.WrittenFile;

/** Relabelling an emptied cartridge back to the scratch pool, on the simulated library (real bytes) in virtual time. */
class SchedulerRelabelTest {

    private static final long CAPACITY = 2_000_000_000L;
    private static final String A = "A00001L9";
    private static final String B = "A00002L9";

    @TempDir
    Path dir;

    private static SchedulerConfig config() {
        return EngineFixture.testConfig().repackSpoolBytes(8_000_000).build();
    }

    private static List<Integer> range(int first, int count) {
        List<Integer> ids = new ArrayList<>();
        for (int i = first; i < first + count; i++) {
            ids.add(i);
        }
        return ids;
    }

    /** Files 0..7 flushed to A, then A repacked onto B: A is EMPTY. */
    private static void fillAndEmpty(EngineFixture f) throws IOException {
        f.label("raw", A);
        f.flushAll(0, 8, "atlas:raw@osm");
        f.label("raw", B);
        f.await(f.scheduler.repackCartridge(A, null));
        f.loop.runUntilIdle();
        assertEquals(CartridgeState.EMPTY, f.catalog.cartridge(A).orElseThrow().state());
        assertFalse(f.catalog.aggregates(A).isEmpty());
    }

    /** A is relabelled: appendable, nothing used, no tape file, no intent left; B holds the old files. */
    private static void assertRelabelled(EngineFixture f) {
        CartridgeRecord a = f.catalog.cartridge(A).orElseThrow();
        assertEquals(CartridgeState.APPENDABLE, a.state(), String.valueOf(a));
        assertEquals("raw", a.family());
        assertEquals(0, a.usedBytes());
        assertEquals(0, a.reclaimableBytes());
        assertEquals(0, a.tapeFiles());
        assertEquals(List.of(), f.catalog.aggregates(A));
        assertEquals(List.of(), f.catalog.relabelIntents());
    }

    /** New files flushed with B disabled land on A from tape file 1; every file stages back byte-identical. */
    private static void newFilesLandOnAAndEverythingStagesBack(EngineFixture f) throws IOException {
        f.await(f.scheduler.disableCartridge(B, "test"));
        f.flushAll(100, 8, "atlas:raw@osm");
        for (int i = 100; i < 108; i++) {
            FileRecord r = f.catalog.file(EngineFixture.pnfsid(i)).orElseThrow();
            assertEquals(A, r.cartridge());
        }
        assertEquals(1, f.catalog.aggregates(A).get(0).tapeFile());
        f.await(f.scheduler.enableCartridge(B));
        List<Integer> all = range(0, 8);
        all.addAll(range(100, 8));
        f.stageAllByteIdentical(all);
    }

    @Test
    void relabel_afterRepack_cartridgeAppendableAgain_newFlushesLandOnItAndStageBackByteIdentical()
            throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, config(), 1, CAPACITY, A, B)) {
            fillAndEmpty(f);

            RelabelReport queued = f.await(f.scheduler.relabelCartridge(A, null, false));
            assertEquals("raw", queued.family());
            f.loop.runUntilIdle();

            RelabelReport done = f.peekStatus().relabels().get(0);
            assertEquals("done", done.state(), String.valueOf(done));
            assertRelabelled(f);
            for (int i = 0; i < 8; i++) {
                assertEquals(B, f.catalog.file(EngineFixture.pnfsid(i)).orElseThrow().cartridge());
            }
            newFilesLandOnAAndEverythingStagesBack(f);
        }
    }

    @Test
    void relabel_notEmptyOrLiveFiles_refusedWithTheReason_cartridgeKeepsItsStateAndFiles() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, config(), 1, CAPACITY, A, B)) {
            f.label("raw", A, B);
            f.flushAll(0, 4, "atlas:raw@osm");
            String holder = f.catalog.file(EngineFixture.pnfsid(0)).orElseThrow().cartridge();
            String other = holder.equals(A) ? B : A;

            CompletionException unknown = assertThrows(CompletionException.class,
                    () -> f.await(f.scheduler.relabelCartridge("NOPE01L9", null, false)));
            assertTrue(unknown.getCause().getMessage().contains("unknown cartridge"), unknown.getMessage());
            CompletionException notEmpty = assertThrows(CompletionException.class,
                    () -> f.await(f.scheduler.relabelCartridge(holder, null, false)));
            assertTrue(notEmpty.getCause().getMessage().contains("not EMPTY"), notEmpty.getMessage());
            CompletionException live = assertThrows(CompletionException.class,
                    () -> f.await(f.scheduler.relabelCartridge(holder, null, true)));
            assertTrue(live.getCause().getMessage().contains("4 live files"), live.getMessage());

            CartridgeRecord after = f.catalog.cartridge(holder).orElseThrow();
            assertEquals(CartridgeState.APPENDABLE, after.state(), "reopened as it was");
            assertEquals(4, f.catalog.files(holder).size());
            assertEquals(List.of(), f.catalog.relabelIntents());

            // with force, a labelled cartridge without live files is relabelled (here for another family)
            f.await(f.scheduler.relabelCartridge(other, "reco", true));
            f.loop.runUntilIdle();
            CartridgeRecord relabelled = f.catalog.cartridge(other).orElseThrow();
            assertEquals(CartridgeState.APPENDABLE, relabelled.state());
            assertEquals("reco", relabelled.family());
        }
    }

    /**
     * A kill after the relabel's intent is recorded, with the label written ({@code labelWritten}) or not, before
     * the catalog commit: the restart runs the relabel again and the cartridge is used as a fresh one.
     */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void relabel_killBeforeTheCatalogCommit_restartRelabelsAgain_newFlushesLandOnIt(boolean labelWritten)
            throws IOException {
        AtomicBoolean stall = new AtomicBoolean();
        try (EngineFixture f = EngineFixture.openWrapped(dir, config(), lib -> new ForwardingLibrary(lib) {
            @Override
            public void writeLabel(String drive, TapeFileSource label, Completion<WrittenFile> done) {
                if (!stall.get()) {
                    super.writeLabel(drive, label, done);
                } else if (labelWritten) {
                    // on tape, but the daemon dies before it hears so
                    super.writeLabel(drive, label, new Completion<>() {
                        @Override
                        public void succeeded(WrittenFile w) {
                        }

                        @Override
                        public void failed(org.tapeq.scheduler.model.TapeFault fault) {
                        }
                    });
                }
            }
        }, 1, CAPACITY, A, B)) {
            fillAndEmpty(f);
            stall.set(true);
            f.await(f.scheduler.relabelCartridge(A, null, false));
            f.loop.runUntilIdle();
            assertEquals(1, f.catalog.relabelIntents().size());
            CartridgeRecord a = f.catalog.cartridge(A).orElseThrow();
            assertEquals(CartridgeState.EMPTY, a.state(), "not trusted as empty before the commit");
            assertTrue(a.tapeFiles() > 0);
        } // no orderly stop, as at kill -9

        try (EngineFixture f = EngineFixture.open(dir, config(), 1, CAPACITY, A, B)) {
            f.loop.runUntilIdle();

            assertRelabelled(f);
            newFilesLandOnAAndEverythingStagesBack(f);
        }
    }

    @Test
    void rebuild_emptiedCartridge_staysEmptyNotAppendable() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, config(), 1, CAPACITY, A, B)) {
            fillAndEmpty(f);

            f.await(f.scheduler.rebuildCartridge(A));

            assertEquals(CartridgeState.EMPTY, f.catalog.cartridge(A).orElseThrow().state());
            assertEquals(List.of(), f.catalog.files(A), "every file of A is live on B, written later");
        }
    }

    /** Sets a cartridge's state in the catalog while no engine runs (the state a past run left). */
    private void setState(String barcode, CartridgeState state, String reason) {
        try (JdbcCatalog c = JdbcCatalog.open("jdbc:sqlite:" + dir.resolve("catalog.db"))) {
            c.putCartridge(c.cartridge(barcode).orElseThrow().withState(state, reason));
        }
    }

    private static String refusal(EngineFixture f, String barcode, String family, boolean force) {
        CompletionException e = assertThrows(CompletionException.class,
                () -> f.await(f.scheduler.relabelCartridge(barcode, family, force)));
        return e.getCause().getMessage();
    }

    @Test
    void relabel_suspectCartridgeEmptiedByRepack_keepsTheFact_refusedWithoutForce() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, config(), 1, CAPACITY, A, B)) {
            f.label("raw", A);
            f.flushAll(0, 8, "atlas:raw@osm");
        }
        setState(A, CartridgeState.SUSPECT, "write error at tape file 1");
        try (EngineFixture f = EngineFixture.open(dir, config(), 1, CAPACITY, A, B)) {
            f.label("raw", B);
            f.await(f.scheduler.repackCartridge(A, null));
            f.loop.runUntilIdle();
            CartridgeRecord a = f.catalog.cartridge(A).orElseThrow();
            assertEquals(CartridgeState.EMPTY, a.state());
            assertTrue(a.reason().startsWith("was SUSPECT") && a.reason().contains("write error at tape file 1"),
                    a.reason());

            String why = refusal(f, A, null, false);
            assertTrue(why.contains("was SUSPECT") && why.contains("--force"), why);
            assertEquals(CartridgeState.EMPTY, f.catalog.cartridge(A).orElseThrow().state());
            assertEquals(List.of(), f.catalog.relabelIntents());

            f.await(f.scheduler.relabelCartridge(A, null, true));
            f.loop.runUntilIdle();
            assertRelabelled(f);
        }
    }

    @Test
    void relabel_foreignCartridge_refusedEvenWithForce() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, config(), 1, CAPACITY, A, B)) {
            f.label("raw", B);
        }
        setState(A, CartridgeState.FOREIGN, "another application's label");
        try (EngineFixture f = EngineFixture.open(dir, config(), 1, CAPACITY, A, B)) {
            String why = refusal(f, A, "raw", true);
            assertTrue(why.contains("FOREIGN"), why);
            f.loop.runUntilIdle();
            assertEquals(CartridgeState.FOREIGN, f.catalog.cartridge(A).orElseThrow().state());
            assertEquals(List.of(), f.catalog.relabelIntents());
        }
    }

    @Test
    void relabel_startOfTapeHoldsDataThatIsNotATapeqLabel_notOverwritten() throws IOException {
        AtomicBoolean foreign = new AtomicBoolean();
        List<String> labelsWritten = new ArrayList<>();
        try (EngineFixture f = EngineFixture.openWrapped(dir, config(), lib -> new ForwardingLibrary(lib) {
            @Override
            public void read(String drive, long skipBytes, long length, ByteSink sink, Completion<Long> done) {
                if (!foreign.get() || skipBytes != 0) {
                    super.read(drive, skipBytes, length, sink, done);
                    return;
                }
                byte[] vol1 = "VOL1OTHER1 another application's tape".getBytes(StandardCharsets.US_ASCII);
                try (OutputStream out = sink.open()) {
                    out.write(vol1);
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
                done.succeeded((long) vol1.length);
            }

            @Override
            public void writeLabel(String drive, TapeFileSource label, Completion<WrittenFile> done) {
                labelsWritten.add(drive);
                super.writeLabel(drive, label, done);
            }
        }, 1, CAPACITY, A, B)) {
            fillAndEmpty(f);
            int before = labelsWritten.size();
            foreign.set(true);

            f.await(f.scheduler.relabelCartridge(A, null, false));
            f.loop.runUntilIdle();

            RelabelReport r = f.peekStatus().relabels().get(0);
            assertEquals("failed", r.state(), String.valueOf(r));
            assertTrue(r.error().contains("not a tapeq label"), r.error());
            assertEquals(before, labelsWritten.size(), "no label written over it");
            assertEquals(CartridgeState.EMPTY, f.catalog.cartridge(A).orElseThrow().state());
            assertEquals(1, f.catalog.relabelIntents().size(), "the intent stays: the cartridge stays closed");
        }
    }

    @Test
    void relabel_whileARepackOfTheCartridgeIsUnfinished_refused() throws IOException {
        AtomicBoolean stall = new AtomicBoolean();
        try (EngineFixture f = EngineFixture.openWrapped(dir, config(), lib -> new ForwardingLibrary(lib) {
            @Override
            public void read(String drive, long skipBytes, long length, ByteSink sink, Completion<Long> done) {
                if (!stall.get()) {
                    super.read(drive, skipBytes, length, sink, done); // else the repack's read never ends
                }
            }
        }, 1, CAPACITY, A, B)) {
            f.label("raw", A);
            f.flushAll(0, 8, "atlas:raw@osm");
            f.label("raw", B);
            stall.set(true);
            f.await(f.scheduler.repackCartridge(A, null));
            assertEquals(0, f.peekStatus().repacks().get(0).ended(), "the repack waits for its read");

            String why = refusal(f, A, null, true);
            assertTrue(why.contains("repack of the cartridge is under way"), why);
            assertEquals(List.of(), f.catalog.relabelIntents());
            assertEquals(8, f.catalog.files(A).size());
        }
    }
}
