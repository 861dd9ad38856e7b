package org.tapeq.mover;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.testing.support.Poll;

/**
 * Site identity between schedulers and movers: a scheduler of another site, or without the site's token, cannot
 * take a mover over however high its epoch; a scheduler refuses a mover that reports another site, other drives
 * or another block size, naming both sides.
 */
class MoverSiteIdentityTest {

    @TempDir
    Path dir;

    /** Each lost mover's reason, as a {@link RemoteLibrary} reports it. */
    private static final class Lost implements MoverEvents {
        final Map<String, String> reasons = new ConcurrentHashMap<>();

        @Override
        public void unreachable(String mover, List<String> drives, String reason) {
            reasons.put(mover, reason);
        }

        @Override
        public void reachable(String mover, List<String> drives,
                                  java.util.Map<String, java.util.Optional<String>> holding) {
            reasons.remove(mover);
        }
    }

    @Test
    void aSchedulerOfAnotherSiteWithAHigherEpochCannotTakeAMoverOver() throws Exception {
        try (MoverSiteFixture site = new MoverSiteFixture(dir, "A00001")) {
            Poll.until("the site's scheduler has spoken to m1", () -> site.movers[0].newestEpoch() == 1);
            Lost lost = new Lost();
            try (RemoteLibrary stray = new RemoteLibrary(site.site(new SiteIdentity("desy", "s3cret")), site.loop,
                    site.library.blockSize(), () -> 99, "stray")) {
                stray.events(lost);
                Poll.until("the stray scheduler sees m1 refuse it", () -> lost.reasons.containsKey("m1"));
                String why = lost.reasons.get("m1");
                assertTrue(why.contains("site 'gridka'") && why.contains("site 'desy'"), why);
                TapeFault refused = assertInstanceOf(TapeFault.class, mount(stray, "drive0", "A00001"));
                assertTrue(refused.getMessage().contains("of site 'gridka' refuses mount of A00001")
                        && refused.getMessage().contains("of site 'desy'"), refused.getMessage());
            }
            assertEquals(1, site.movers[0].newestEpoch(), "the stray scheduler's epoch was taken");
            assertEquals(1, site.movers[1].newestEpoch(), "the stray scheduler's epoch was taken");
            assertFalse(site.remote.lost("m1"));
        }
    }

    @Test
    void aSchedulerWithoutTheSitesTokenIsRefused() throws Exception {
        try (MoverSiteFixture site = new MoverSiteFixture(dir, "A00001")) {
            Lost lost = new Lost();
            try (RemoteLibrary stray = new RemoteLibrary(site.site(new SiteIdentity("gridka", "guess")), site.loop,
                    site.library.blockSize(), () -> 99, "stray")) {
                stray.events(lost);
                Poll.until("m2 refuses the wrong token", () -> lost.reasons.containsKey("m2"));
                assertTrue(lost.reasons.get("m2").contains("token is not the site's"), lost.reasons.get("m2"));
            }
            assertTrue(site.movers[1].newestEpoch() < 99, "the epoch of a scheduler with a wrong token was taken");
        }
    }

    @Test
    void aSchedulerRefusesAMoverOfAnotherSite() throws Exception {
        try (MoverSiteFixture site = new MoverSiteFixture(dir, "A00001")) {
            site.movers[1].close();
            site.moverIdentity[1] = new SiteIdentity("desy", "s3cret");
            // a mover of another site has its own state directory: gridka's fencing epoch is not desy's
            java.nio.file.Files.delete(site.moverState(1).resolve(EpochFence.FILE));
            site.startMover(1);
            Poll.until("drive2 unavailable: its mover is of another site",
                    () -> String.valueOf(site.drive("drive2").reason()).contains("site 'desy'"));
            String why = site.drive("drive2").reason();
            assertTrue(why.contains("site 'gridka'"), why);
            assertEquals("unavailable", site.drive("drive2").state());
        }
    }

    @Test
    void aMoverWhoseDrivesOrBlockSizeDisagreeIsRefused() throws Exception {
        try (MoverSiteFixture site = new MoverSiteFixture(dir, "A00001")) {
            Lost lost = new Lost();
            try (RemoteLibrary other = new RemoteLibrary(site.site(MoverSiteFixture.SITE), site.loop,
                    site.library.blockSize() * 2, () -> 1, "other")) {
                other.events(lost);
                Poll.until("m1 refused for its block size", () -> lost.reasons.containsKey("m1"));
                assertTrue(lost.reasons.get("m1").contains("blocks of " + site.library.blockSize() + " bytes"),
                        lost.reasons.get("m1"));
            }
            MoverSite wrongDrives = new MoverSite(List.of(
                    new MoverEndpoint("m1", "127.0.0.1", site.movers[0].port(), List.of("drive0")),
                    new MoverEndpoint("m2", "127.0.0.1", site.movers[1].port(), MoverSiteFixture.M2_DRIVES)),
                    "m1", 60_000, 100, 5_000, 10_000, MoverSiteFixture.SITE);
            Lost lost2 = new Lost();
            try (RemoteLibrary other = new RemoteLibrary(wrongDrives, site.loop, site.library.blockSize(), () -> 1,
                    "other")) {
                other.events(lost2);
                Poll.until("m1 refused for its drives", () -> lost2.reasons.containsKey("m1"));
                assertTrue(lost2.reasons.get("m1").contains("owns drives [drive0, drive1]"), lost2.reasons.get("m1"));
                assertFalse(lost2.reasons.containsKey("m2"), lost2.reasons.toString());
            }
        }
    }

    @Test
    void aMoverThatDoesNotFitIsRefusedBeforeItsFirstInventoryIsUsed() throws Exception {
        try (MoverSiteFixture site = new MoverSiteFixture(dir, "A00001")) {
            MoverSite wrongDrives = new MoverSite(List.of(
                    new MoverEndpoint("m1", "127.0.0.1", site.movers[0].port(), MoverSiteFixture.M1_DRIVES),
                    new MoverEndpoint("m2", "127.0.0.1", site.movers[1].port(), List.of("drive2"))),
                    "m1", 60_000, 100, 5_000, 10_000, MoverSiteFixture.SITE);
            try (RemoteLibrary other = new RemoteLibrary(wrongDrives, site.loop, site.library.blockSize(), () -> 1,
                    "other")) {
                // no probe has run (events() not called): the inventory must check the movers itself
                CompletableFuture<org.tapeq.scheduler.tape.Inventory> inv = new CompletableFuture<>();
                other.inventory(new Completion<>() {
                    @Override
                    public void succeeded(org.tapeq.scheduler.tape.Inventory value) {
                        inv.complete(value);
                    }

                    @Override
                    public void failed(TapeFault fault) {
                        inv.completeExceptionally(fault);
                    }
                });
                org.tapeq.scheduler.tape.Inventory.Drive d2 = inv.get(30, java.util.concurrent.TimeUnit.SECONDS)
                        .drives().stream().filter(d -> d.id().equals("drive2")).findFirst().orElseThrow();
                assertTrue(d2.unreachable() != null && d2.unreachable().contains("owns drives [drive2, drive3]"),
                        "the inventory of a mover that does not fit was used: " + d2);
                assertTrue(other.lost("m2"));
                assertFalse(other.lost("m1"));
            }
        }
    }

    private static Object mount(RemoteLibrary library, String drive, String barcode) throws Exception {
        CompletableFuture<Object> done = new CompletableFuture<>();
        library.mount(drive, barcode, new Completion<>() {
            @Override
            public void succeeded(Void value) {
                done.complete("mounted");
            }

            @Override
            public void failed(TapeFault fault) {
                done.complete(fault);
            }
        });
        return done.get(30, java.util.concurrent.TimeUnit.SECONDS);
    }
}
