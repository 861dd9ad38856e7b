package org.tapeq.daemon.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

/**
 * The control socket's wire form of each admin command: the names and argument lists the command line has always
 * sent (so an older client talks to a newer daemon and back), decoded back to the same command, and the arity
 * errors the daemon answers.
 */
class AdminCommandTest {

    /** Every command, with the wire name and arguments of the protocol as it was before the commands were types. */
    private static final List<Object[]> WIRE_FORMS = List.of(
            new Object[] {new AdminCommand.Status(), "status", List.of()},
            new Object[] {new AdminCommand.Status(new StatusPage(100, 10)), "status", List.of("100", "10")},
            new Object[] {new AdminCommand.DriveDown("drive1", "cleaning"), "drive-down", List.of("drive1", "cleaning")},
            new Object[] {new AdminCommand.DriveUp("drive1"), "drive-up", List.of("drive1")},
            new Object[] {new AdminCommand.DriveUnloadIdle(), "drive-unload-idle", List.of()},
            new Object[] {new AdminCommand.Inventory(), "inventory", List.of()},
            new Object[] {new AdminCommand.CartridgeList(), "cartridge-list", List.of()},
            new Object[] {new AdminCommand.CartridgeDisable("TQ0001L9", "broken case"), "cartridge-disable",
                    List.of("TQ0001L9", "broken case")},
            new Object[] {new AdminCommand.CartridgeEnable("TQ0001L9"), "cartridge-enable", List.of("TQ0001L9")},
            new Object[] {new AdminCommand.CartridgeLabel("TQ0000L9", "atlas", true), "cartridge-label",
                    List.of("TQ0000L9", "atlas", "true")},
            new Object[] {new AdminCommand.CartridgeVerify("TQ0000L9", 5), "cartridge-verify",
                    List.of("TQ0000L9", "5")},
            new Object[] {new AdminCommand.CartridgeVerifyCancel("TQ0000L9"), "cartridge-verify-cancel",
                    List.of("TQ0000L9")},
            new Object[] {new AdminCommand.CartridgeRepack("TQ0000L9", "atlas"), "cartridge-repack",
                    List.of("TQ0000L9", "atlas")},
            new Object[] {new AdminCommand.CartridgeRepack("TQ0000L9", "-"), "cartridge-repack",
                    List.of("TQ0000L9", "-")},
            new Object[] {new AdminCommand.CartridgeRepackCancel("TQ0000L9"), "cartridge-repack-cancel",
                    List.of("TQ0000L9")},
            new Object[] {new AdminCommand.CartridgeRelabel("TQ0000L9", "-", false), "cartridge-relabel",
                    List.of("TQ0000L9", "-", "false")},
            new Object[] {new AdminCommand.CartridgeRelabel("TQ0000L9", "reco", true), "cartridge-relabel",
                    List.of("TQ0000L9", "reco", "true")},
            new Object[] {new AdminCommand.Migrate("LTO8", "LTO9", "-"), "migrate", List.of("LTO8", "LTO9", "-")},
            new Object[] {new AdminCommand.MigrateCancel(), "migrate-cancel", List.of()},
            new Object[] {new AdminCommand.CatalogRebuild(List.of("A", "B")), "catalog-rebuild", List.of("A", "B")},
            new Object[] {new AdminCommand.ReclaimPause("recall campaign"), "reclaim-pause",
                    List.of("recall campaign")},
            new Object[] {new AdminCommand.ReclaimResume(), "reclaim-resume", List.of()},
            new Object[] {new AdminCommand.ReclaimStatus(), "reclaim-status", List.of()});

    @Test
    void eachCommand_onTheWire_hasTheNameAndArgumentsOfBefore_andDecodesToItself() {
        Set<String> names = new HashSet<>();
        for (Object[] form : WIRE_FORMS) {
            AdminCommand command = (AdminCommand) form[0];
            assertEquals(form[1], command.wire().name());
            assertEquals(form[2], command.args());
            @SuppressWarnings("unchecked")
            List<String> args = (List<String>) form[2];
            assertEquals(command, AdminCommand.decode((String) form[1], args));
            names.add(command.wire().name());
        }
        Set<String> all = new HashSet<>();
        AdminCommand.WIRES.forEach(w -> all.add(w.name()));
        assertEquals(all, names, "a command without a wire test");
        assertEquals(AdminCommand.WIRES.size(), all.size(), "two commands with one name");
    }

    @Test
    void status_withAPageOutOfRange_namesTheParameter() {
        assertEquals("status limit must be 0..1000, not 5000", assertThrows(IllegalArgumentException.class,
                () -> AdminCommand.decode("status", List.of("0", "5000"))).getMessage());
        assertEquals("status offset must be a number, not 'x'", assertThrows(IllegalArgumentException.class,
                () -> AdminCommand.decode("status", List.of("x"))).getMessage());
        assertEquals(new StatusPage(20, 50), StatusPage.ofQuery("offset=20"));
        assertEquals(StatusPage.FIRST, StatusPage.ofQuery(null));
        assertEquals("status offset must be 0 or more, not -1", assertThrows(IllegalArgumentException.class,
                () -> StatusPage.ofQuery("limit=5&offset=-1")).getMessage());
    }

    @Test
    void decode_withTooFewOrTooManyArguments_namesTheUsage() {
        assertEquals("drive-down takes <drive> <reason>", assertThrows(IllegalArgumentException.class,
                () -> AdminCommand.decode("drive-down", List.of("drive1"))).getMessage());
        assertEquals("drive-up takes <drive>", assertThrows(IllegalArgumentException.class,
                () -> AdminCommand.decode("drive-up", List.of())).getMessage());
        assertEquals("inventory takes no arguments", assertThrows(IllegalArgumentException.class,
                () -> AdminCommand.decode("inventory", List.of("x"))).getMessage());
        assertEquals("cartridge-label takes <barcode> <family> <force: true|false>",
                assertThrows(IllegalArgumentException.class,
                        () -> AdminCommand.decode("cartridge-label", List.of("a", "b"))).getMessage());
        assertEquals("cartridge-verify: sample must be a whole number of aggregates (0 for all), not '-1'",
                assertThrows(IllegalArgumentException.class,
                        () -> AdminCommand.decode("cartridge-verify", List.of("a", "-1"))).getMessage());
        assertEquals("catalog-rebuild takes one or more barcodes", assertThrows(IllegalArgumentException.class,
                () -> AdminCommand.decode("catalog-rebuild", List.of())).getMessage());
        for (AdminCommand.Wire wire : AdminCommand.WIRES) {
            List<String> tooMany = new ArrayList<>();
            for (int i = 0; i <= wire.maxArgs() && wire.maxArgs() < 100; i++) {
                tooMany.add("x");
            }
            if (!tooMany.isEmpty()) {
                assertThrows(IllegalArgumentException.class, () -> AdminCommand.decode(wire.name(), tooMany),
                        wire.name());
            }
        }
    }

    @Test
    void decode_ofAnUnknownCommand_saysSo() {
        assertEquals("unknown command 'drive-sideways'", assertThrows(IllegalArgumentException.class,
                () -> AdminCommand.decode("drive-sideways", List.of())).getMessage());
    }
}
