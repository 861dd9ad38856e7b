package org.tapeq.scheduler.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.CartridgeState;
import org.tapeq.scheduler.engine.lifecycle.ReclaimConfig;
import org.tapeq.scheduler.engine.lifecycle.ScratchReturn;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.model.RemoveRequest;

/**
 * {@code reclaim.relabel}: a cartridge the reclamation policy emptied returns to the scratch pool, on the simulated
 * library (real bytes) in virtual time.
 */
class ScratchReturnTest {

    private static final long CAPACITY = 2_000_000_000L;
    /** As in ReclaimPolicyTest: a cartridge closes once 16 files of about 900 kB are on it. */
    private static final long FULL_MARGIN = MediaType.LTO9.capacityBytes() - 14_000_000L;
    private static final String A = "A00001L9";
    private static final String B = "A00002L9";
    private static final String C = "A00003L9";

    @TempDir
    Path dir;

    private static SchedulerConfig config(boolean relabel) {
        return EngineFixture.testConfig().repackSpoolBytes(3_000_000).fullMarginBytes(FULL_MARGIN)
                .reclaim(new ReclaimConfig(true, 0.3, 2, 0, 60_000, relabel)).build();
    }

    /** A FULL with files 0..15, B FULL with files 16..31, C labelled and empty (the repack's target). */
    private static void fill(EngineFixture f) throws IOException {
        f.label("raw", A);
        f.flushAll(0, 16, "atlas:raw@osm");
        f.label("raw", B);
        f.flushAll(16, 16, "atlas:raw@osm");
        f.label("raw", C);
        assertEquals(CartridgeState.FULL, f.catalog.cartridge(A).orElseThrow().state());
    }

    /** Removes files 0..11: A is 25 % live, below the 30 % threshold, and the policy repacks it onto C. */
    private static void makeASparse(EngineFixture f) {
        for (int i = 0; i < 12; i++) {
            f.scheduler.remove(new RemoveRequest(10_000 + i, EngineFixture.pnfsid(i), "atlas"));
        }
        f.loop.runUntilIdle();
    }

    private static List<Integer> range(int first, int count) {
        List<Integer> ids = new ArrayList<>();
        for (int i = first; i < first + count; i++) {
            ids.add(i);
        }
        return ids;
    }

    @Test
    void relabelOn_sparseCartridgeRepackedByThePolicy_relabelled_newFlushLandsOnItAndStagesBack()
            throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, config(true), 1, CAPACITY, A, B, C)) {
            fill(f);
            makeASparse(f);

            assertEquals(List.of(A), f.catalog.repackJobs().stream().map(j -> j.source()).toList());
            assertEquals(4, f.catalog.files(C).size(), "A's live files moved to C");
            CartridgeRecord a = f.catalog.cartridge(A).orElseThrow();
            assertEquals(CartridgeState.APPENDABLE, a.state(), String.valueOf(a));
            assertEquals("raw", a.family());
            assertEquals(0, a.usedBytes());
            assertEquals(0, a.tapeFiles());
            assertEquals(List.of(), f.catalog.aggregates(A));
            assertEquals(List.of(), f.catalog.relabelIntents());
            assertEquals("done", f.peekStatus().relabels().get(0).state());

            f.await(f.scheduler.disableCartridge(C, "test")); // B is FULL: the only writable cartridge is A
            f.flushAll(100, 4, "atlas:raw@osm");
            for (int i = 100; i < 104; i++) {
                assertEquals(A, f.catalog.file(EngineFixture.pnfsid(i)).orElseThrow().cartridge());
            }
            assertEquals(1, f.catalog.aggregates(A).get(0).tapeFile());
            f.await(f.scheduler.enableCartridge(C));
            List<Integer> live = range(12, 20); // 12..15 now on C, 16..31 on B
            live.addAll(range(100, 4));
            f.stageAllByteIdentical(live);
        }
    }

    @Test
    void relabelOn_restartBetweenEmptiedAndTheRelabel_relabelledAtTheNextStart() throws IOException {
        FailingCallCatalog failing = new FailingCallCatalog();
        try (EngineFixture f = EngineFixture.openCatalogWrapped(dir, config(true), failing::wrap, b -> {
            b.drives(1);
            for (String barcode : List.of(A, B, C)) {
                b.cartridge(barcode, MediaType.LTO9, CAPACITY);
            }
        })) {
            fill(f);
            failing.fail("putRelabelIntent"); // the relabel never gets recorded: as a kill -9 before it
            makeASparse(f);

            assertEquals(4, f.catalog.files(C).size(), "A's live files moved to C");
            assertEquals(CartridgeState.EMPTY, f.catalog.cartridge(A).orElseThrow().state());
            assertEquals(List.of(), f.catalog.relabelIntents());
        }

        try (EngineFixture f = EngineFixture.open(dir, config(true), 1, CAPACITY, A, B, C)) {
            f.loop.runUntilIdle();

            CartridgeRecord a = f.catalog.cartridge(A).orElseThrow();
            assertEquals(CartridgeState.APPENDABLE, a.state(), "returned to the scratch pool after the restart: " + a);
            assertEquals(0, a.usedBytes());
            assertEquals(List.of(), f.catalog.relabelIntents());
            assertEquals("", f.catalog.setting(ScratchReturn.PENDING_SETTING).orElse(""));
        }
    }

    @Test
    void relabelOff_sparseCartridgeRepackedByThePolicy_staysEmpty() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, config(false), 1, CAPACITY, A, B, C)) {
            fill(f);
            makeASparse(f);

            assertEquals(4, f.catalog.files(C).size());
            assertEquals(CartridgeState.EMPTY, f.catalog.cartridge(A).orElseThrow().state());
            assertEquals(List.of(), f.peekStatus().relabels());
        }
    }

    @Test
    void relabelOn_suspectCartridgeEmptiedByThePolicy_staysEmptyNotReused() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, config(true), 1, CAPACITY, A, B, C)) {
            fill(f);
            f.loop.execute(() -> f.library.alerts().cartridgeSuspect("drive0", A, "unmount: TapeAlert 0x04 media"));
            f.loop.runUntilIdle();

            assertEquals(16, f.catalog.files(C).size(), "every file of A was readable and moved to C");
            CartridgeRecord a = f.catalog.cartridge(A).orElseThrow();
            assertEquals(CartridgeState.EMPTY, a.state(), String.valueOf(a));
            assertTrue(a.reason().contains("was SUSPECT"), a.reason());
            assertEquals(List.of(), f.peekStatus().relabels());
        }
    }

    /**
     * A repack the policy started that fails after its start was accepted (the spool directory cannot be opened)
     * no longer lists the cartridge for the scratch pool: the operator's own repack later leaves it EMPTY.
     */
    @Test
    void relabelOn_policyRepackFailsAfterStart_operatorsLaterRepackLeavesItEmpty() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, config(true), 1, CAPACITY, A, B, C)) {
            fill(f);
            f.await(f.scheduler.reclaim().pause("test"));
            makeASparse(f);
            Path blocker = dir.resolve("spool").resolve(A);
            Files.createDirectories(blocker.getParent());
            Files.writeString(blocker, "not a directory"); // the spool cannot be opened: the repack fails late
            f.scheduler.reclaim().resume();
            f.loop.runUntilIdle();
            assertEquals(List.of(), f.catalog.repackJobs().stream().map(j -> j.source()).toList());
            Files.delete(blocker);

            f.await(f.scheduler.repackCartridge(A, null)); // the operator's own repack
            f.loop.runUntilIdle();

            CartridgeRecord a = f.catalog.cartridge(A).orElseThrow();
            assertEquals(CartridgeState.EMPTY, a.state(), String.valueOf(a));
            assertEquals("", f.catalog.setting(ScratchReturn.PENDING_SETTING).orElse(""));
        }
    }

    /** A queued verification keeps the policy off the cartridge: no repack (and so no relabel) under it. */
    @Test
    void relabelOn_verificationQueued_policyDoesNotRepackTheCartridge() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, config(true), 1, CAPACITY, A, B, C)) {
            fill(f);
            f.await(f.scheduler.reclaim().pause("test"));
            makeASparse(f);
            f.scheduler.verifyCartridge(A, 0);
            f.scheduler.reclaim().resume();
            f.loop.runFor(1);

            assertEquals(List.of(), f.catalog.repackJobs().stream().map(j -> j.source()).toList());
        }
    }

    @Test
    void config_relabelWithoutThePolicy_refusedNamingTheKey() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new ReclaimConfig(false, 0.3, 2, 0, 60_000, true));
        assertTrue(e.getMessage().startsWith(ReclaimConfig.RELABEL + " "), e.getMessage());
    }
}
