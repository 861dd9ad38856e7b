package org.tapeq.scheduler.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.catalog.CartridgeState;
import org.tapeq.scheduler.catalog.RepackJob;
import org.tapeq.scheduler.catalog.Verification;
import org.tapeq.scheduler.engine.lifecycle.VerifyPolicyReport;
import org.tapeq.scheduler.model.FileRecord;

/** The periodic verification policy over two simulated weeks (real bytes, virtual time). */
class SchedulerVerifyPolicyTest {

    private static final long CAPACITY = 2_000_000_000L;
    private static final long DAY = 24 * 3600 * 1000L;
    private static final String A = "A00001L9";
    private static final String B = "A00002L9";
    private static final String C = "A00003L9";
    private static final String D = "A00004L9";
    private static final String E = "A00005L9";
    private static final List<String> ALL = List.of(A, B, C, D, E);

    @TempDir
    Path dir;

    /** The time each cartridge was last verified, by barcode (absent: never). */
    private static Map<String, Long> verifiedAt(EngineFixture f) {
        Map<String, Long> at = new TreeMap<>();
        for (String b : ALL) {
            f.catalog.lastVerification(b).ifPresent(v -> at.put(b, v.verifiedAt()));
        }
        return at;
    }

    @Test
    void verifyPolicy_twoPerWeekOverTwoWeeks_fourVerifiedNeverVerifiedFirstThenOldest_badOneSuspect()
            throws IOException {
        long t2;
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().build(), 1, CAPACITY,
                A, B, C, D, E)) {
            // four files on each cartridge: the others are disabled while one is written
            for (int i = 0; i < ALL.size(); i++) {
                f.label("raw", ALL.get(i));
                f.flushAll(i * 10, 4, "atlas:raw@osm");
                f.await(f.scheduler.disableCartridge(ALL.get(i), "test"));
            }
            for (String b : ALL) {
                f.await(f.scheduler.enableCartridge(b));
            }
            // verified by hand: C first, then A
            f.await(f.scheduler.verifyCartridge(C, 0));
            f.loop.runFor(60_000);
            f.await(f.scheduler.verifyCartridge(A, 0));
            t2 = f.catalog.lastVerification(A).orElseThrow().verifiedAt();
            assertTrue(f.catalog.lastVerification(C).orElseThrow().verifiedAt() < t2);
        }
        Map<String, Long> before;
        SchedulerConfig config = EngineFixture.testConfig().verifyPerWeek(2).build();
        long interval = 7 * DAY / 2;
        try (EngineFixture f = EngineFixture.openTimed(dir, config, 1, CAPACITY, A, B, C, D, E)) {
            before = verifiedAt(f);
            FileRecord victim = f.catalog.files(D).get(1);
            f.library.faults().corruptByte(D, victim.tapeFile(), victim.offset() + victim.size() / 2);
            VerifyPolicyReport first = f.peekStatus().verifyPolicy();
            assertEquals(5, first.eligible());
            assertEquals(3, first.overdue(), "B, D and E were never verified");
            assertEquals(List.of(B, D, E, C, A), first.nextDue());
            assertEquals(t2 + interval, first.nextLook(), "the first one is due an interval after the latest");

            f.loop.runUntil(t2 + 14 * DAY + 3600_000);

            Map<String, Long> after = verifiedAt(f);
            List<String> verified = new ArrayList<>();
            for (String b : ALL) {
                if (!after.get(b).equals(before.get(b))) {
                    verified.add(b);
                }
            }
            verified.sort(Comparator.comparing(after::get));
            assertEquals(List.of(B, D, E, C), verified, "in order of their verifications: " + after);
            for (int i = 0; i < verified.size(); i++) {
                long at = after.get(verified.get(i));
                long start = t2 + (i + 1) * interval;
                assertTrue(at >= start && at < start + 3600_000, verified.get(i) + " verified at " + at
                        + ", due from " + start);
            }
            assertEquals(CartridgeState.SUSPECT, f.catalog.cartridge(D).orElseThrow().state());
            Verification bad = f.catalog.lastVerification(D).orElseThrow();
            assertEquals(1, bad.filesBad());
            assertTrue(bad.summary().contains(victim.pnfsid()), bad.summary());
            VerifyPolicyReport last = f.peekStatus().verifyPolicy();
            assertEquals(4, last.eligible(), "a SUSPECT cartridge is no longer verified in turn");
            assertEquals(C, last.lastStarted());
            assertEquals(List.of(A, B, E, C), last.nextDue());
            assertEquals(0, last.overdue());
        }
    }

    @Test
    void verifyPolicy_negativeTooFrequentOrWithoutBackgroundDrives_refusedNamingTheKey() {
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
                () -> EngineFixture.testConfig().verifyPerWeek(-1).build());
        assertTrue(negative.getMessage().contains("verifyPerWeek"), negative.getMessage());
        IllegalArgumentException often = assertThrows(IllegalArgumentException.class,
                () -> EngineFixture.testConfig().verifyPerWeek(SchedulerConfig.MAX_VERIFY_PER_WEEK + 1).build());
        assertTrue(often.getMessage().contains("verifyPerWeek"), often.getMessage());
        IllegalArgumentException sample = assertThrows(IllegalArgumentException.class,
                () -> EngineFixture.testConfig().verifySample(-2).build());
        assertTrue(sample.getMessage().contains("verifySample"), sample.getMessage());
        IllegalArgumentException noDrive = assertThrows(IllegalArgumentException.class,
                () -> EngineFixture.testConfig().verifyPerWeek(5).maxBackgroundDrives(0).build());
        assertTrue(noDrive.getMessage().contains("maxBackgroundDrives"), noDrive.getMessage());
    }

    @Test
    void verifyPolicy_cartridgeBeingRepacked_notEligible_theNextOneIsVerified() throws IOException {
        SchedulerConfig plain = EngineFixture.testConfig().repackSpoolBytes(3_000_000).build();
        try (EngineFixture f = EngineFixture.open(dir, plain, 1, CAPACITY, A, B, C)) {
            f.label("raw", A);
            f.flushAll(0, 4, "atlas:raw@osm");
            f.await(f.scheduler.disableCartridge(A, "test: fill B next"));
            f.label("raw", B);
            f.flushAll(10, 4, "atlas:raw@osm");
            f.await(f.scheduler.enableCartridge(A));
            f.label("raw", C);
            f.scheduler.repackCartridge(A, null);
            f.loop.runFor(1); // the repack of A is recorded; then a kill -9
            assertEquals(RepackJob.RUNNING, f.catalog.repackJobs().get(0).state());
        }

        SchedulerConfig config = EngineFixture.testConfig().repackSpoolBytes(3_000_000).verifyPerWeek(1).build();
        try (EngineFixture f = EngineFixture.openTimed(dir, config, 1, CAPACITY, A, B, C)) {
            VerifyPolicyReport first = f.peekStatus().verifyPolicy();

            // A (never verified, first by barcode) is being repacked: B is the one due
            assertEquals(B, first.lastStarted(), String.valueOf(first));
            assertTrue(!first.nextDue().contains(A), String.valueOf(first));
            assertEquals(1, first.eligible(), String.valueOf(first));
        }
    }
}
