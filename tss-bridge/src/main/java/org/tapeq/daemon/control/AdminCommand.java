package org.tapeq.daemon.control;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.tapeq.scheduler.engine.Scheduler;
import org.tapeq.scheduler.model.MediaType;

/**
 * One administrative action on the running daemon, defined once: its name and arguments on the control socket
 * ({@link #wire()}, {@link #args()}) and how the daemon carries it out ({@link #execute}). The command line
 * builds one per subcommand and sends it ({@link ControlProtocol#call(java.nio.file.Path, AdminCommand)}); the
 * control server decodes it back ({@link #decode}) and executes it on a control worker thread. Each action
 * reaches the engine only through the scheduler's own methods, which post to its event loop.
 */
public sealed interface AdminCommand {

    /** The action's name on the wire, its arguments (usage text and count) and how to rebuild it from them. */
    record Wire(String name, String usage, int minArgs, int maxArgs, Function<List<String>, AdminCommand> decoder) {

        /** The command {@code args} spell; IllegalArgumentException (sent back to the client) if they do not fit. */
        AdminCommand decode(List<String> args) {
            if (args.size() < minArgs || args.size() > maxArgs) {
                throw new IllegalArgumentException(name + " takes " + usage);
            }
            return decoder.apply(List.copyOf(args));
        }
    }

    /** Every action the control socket knows. */
    List<Wire> WIRES = List.of(Status.WIRE, DriveDown.WIRE, DriveUp.WIRE, DriveUnloadIdle.WIRE, Inventory.WIRE,
            CartridgeList.WIRE, CartridgeDisable.WIRE, CartridgeEnable.WIRE, CartridgeLabel.WIRE,
            CartridgeVerify.WIRE, CartridgeVerifyCancel.WIRE, CartridgeRepack.WIRE, CartridgeRepackCancel.WIRE,
            CartridgeRelabel.WIRE, Migrate.WIRE, MigrateCancel.WIRE, CatalogRebuild.WIRE, ReclaimPause.WIRE,
            ReclaimResume.WIRE, ReclaimStatus.WIRE);

    /** How this action is named and decoded on the wire. */
    Wire wire();

    /** The arguments sent on the wire, in the order {@link Wire#decoder()} reads them. */
    List<String> args();

    /** Carries the action out on the running daemon and returns the answer's result. */
    JsonNode execute(ControlTarget daemon) throws Exception;

    /**
     * The command a control request names.
     *
     * @throws IllegalArgumentException for an unknown command or arguments that do not fit it
     */
    static AdminCommand decode(String name, List<String> args) {
        Map<String, Wire> byName = WIRES.stream().collect(Collectors.toMap(Wire::name, w -> w));
        Wire wire = byName.get(name);
        if (wire == null) {
            throw new IllegalArgumentException("unknown command '" + name + "'");
        }
        return wire.decode(args);
    }

    /**
     * The daemon's status: bridges, scheduler (queues, drives), rates; entries {@code offset} to
     * {@code offset + limit - 1} of each paged list (queues, parked flushes).
     */
    record Status(StatusPage page) implements AdminCommand {
        public static final Wire WIRE = new Wire("status", "[OFFSET [LIMIT]]", 0, 2, a -> new Status(new StatusPage(
                a.size() > 0 ? StatusPage.number(a.get(0), "offset") : 0,
                a.size() > 1 ? StatusPage.number(a.get(1), "limit") : StatusPage.DEFAULT_LIMIT)));

        /** The first page. */
        public Status() {
            this(StatusPage.FIRST);
        }

        @Override
        public Wire wire() {
            return WIRE;
        }

        @Override
        public List<String> args() {
            // The first page as before pages existed, so a daemon from before them understands it.
            return page.equals(StatusPage.FIRST) ? List.of()
                    : List.of(Integer.toString(page.offset()), Integer.toString(page.limit()));
        }

        @Override
        public JsonNode execute(ControlTarget daemon) {
            return daemon.status(page);
        }
    }

    /** Takes a drive out of service; status shows the reason. */
    record DriveDown(String drive, String reason) implements AdminCommand {
        public static final Wire WIRE = new Wire("drive-down", "<drive> <reason>", 2, 2,
                a -> new DriveDown(a.get(0), a.get(1)));

        @Override
        public Wire wire() {
            return WIRE;
        }

        @Override
        public List<String> args() {
            return List.of(drive, reason);
        }

        @Override
        public JsonNode execute(ControlTarget daemon) throws Exception {
            return Await.done(daemon.scheduler().driveDown(drive, reason));
        }
    }

    /** Puts a drive back into service. */
    record DriveUp(String drive) implements AdminCommand {
        public static final Wire WIRE = new Wire("drive-up", "<drive>", 1, 1, a -> new DriveUp(a.get(0)));

        @Override
        public Wire wire() {
            return WIRE;
        }

        @Override
        public List<String> args() {
            return List.of(drive);
        }

        @Override
        public JsonNode execute(ControlTarget daemon) throws Exception {
            return Await.done(daemon.scheduler().driveUp(drive));
        }
    }

    /** Every idle drive holding a cartridge gives it back now; the result maps drive to cartridge. */
    record DriveUnloadIdle() implements AdminCommand {
        public static final Wire WIRE = new Wire("drive-unload-idle", "no arguments", 0, 0,
                a -> new DriveUnloadIdle());

        @Override
        public Wire wire() {
            return WIRE;
        }

        @Override
        public List<String> args() {
            return List.of();
        }

        @Override
        public JsonNode execute(ControlTarget daemon) throws Exception {
            return ControlProtocol.JSON.valueToTree(Await.quick(daemon.scheduler().unloadIdleDrives()));
        }
    }

    /** Compares the library's cartridges with the catalog's and adds the new ones. */
    record Inventory() implements AdminCommand {
        public static final Wire WIRE = new Wire("inventory", "no arguments", 0, 0, a -> new Inventory());

        @Override
        public Wire wire() {
            return WIRE;
        }

        @Override
        public List<String> args() {
            return List.of();
        }

        @Override
        public JsonNode execute(ControlTarget daemon) throws Exception {
            return ControlProtocol.JSON.valueToTree(Await.tapeTask(daemon.scheduler().syncInventory()));
        }
    }

    /** The catalog's cartridges. */
    record CartridgeList() implements AdminCommand {
        public static final Wire WIRE = new Wire("cartridge-list", "no arguments", 0, 0, a -> new CartridgeList());

        @Override
        public Wire wire() {
            return WIRE;
        }

        @Override
        public List<String> args() {
            return List.of();
        }

        @Override
        public JsonNode execute(ControlTarget daemon) {
            Map<String, Long> files = daemon.fileCounts();
            JsonNode list = ControlProtocol.JSON.valueToTree(daemon.cartridges());
            for (JsonNode c : list) { // user files, beside the catalog's tape files (aggregates count once there)
                ((ObjectNode) c).put("files", files.getOrDefault(c.path("barcode").asText(), 0L));
            }
            return list;
        }
    }

    /** Nothing more is read from or written to a cartridge until it is enabled. */
    record CartridgeDisable(String barcode, String reason) implements AdminCommand {
        public static final Wire WIRE = new Wire("cartridge-disable", "<barcode> <reason>", 2, 2,
                a -> new CartridgeDisable(a.get(0), a.get(1)));

        @Override
        public Wire wire() {
            return WIRE;
        }

        @Override
        public List<String> args() {
            return List.of(barcode, reason);
        }

        @Override
        public JsonNode execute(ControlTarget daemon) throws Exception {
            return Await.done(daemon.scheduler().disableCartridge(barcode, reason));
        }
    }

    /** A disabled cartridge back in use. */
    record CartridgeEnable(String barcode) implements AdminCommand {
        public static final Wire WIRE = new Wire("cartridge-enable", "<barcode>", 1, 1,
                a -> new CartridgeEnable(a.get(0)));

        @Override
        public Wire wire() {
            return WIRE;
        }

        @Override
        public List<String> args() {
            return List.of(barcode);
        }

        @Override
        public JsonNode execute(ControlTarget daemon) throws Exception {
            return Await.done(daemon.scheduler().enableCartridge(barcode));
        }
    }

    /** Writes tapeq's label for {@code family} on a cartridge (mounts it); with force even over tapeq data. */
    record CartridgeLabel(String barcode, String family, boolean force) implements AdminCommand {
        public static final Wire WIRE = new Wire("cartridge-label", "<barcode> <family> <force: true|false>", 3, 3,
                a -> new CartridgeLabel(a.get(0), a.get(1), force(a.get(2))));

        /** Only the two words the command line sends: anything else is not taken as "no". */
        private static boolean force(String arg) {
            if (!arg.equals("true") && !arg.equals("false")) {
                throw new IllegalArgumentException("cartridge-label: force must be true or false, not '" + arg + "'");
            }
            return arg.equals("true");
        }

        @Override
        public Wire wire() {
            return WIRE;
        }

        @Override
        public List<String> args() {
            return List.of(barcode, family, Boolean.toString(force));
        }

        @Override
        public JsonNode execute(ControlTarget daemon) throws Exception {
            return ControlProtocol.JSON.valueToTree(
                    Await.tapeTask(daemon.scheduler().labelCartridge(barcode, family, force)));
        }
    }

    /**
     * Queues the verification of a cartridge as background work ({@code sample} aggregates spread over it, 0 for
     * all); answers once it is queued, with what it will read. Progress and result are in the status.
     */
    record CartridgeVerify(String barcode, int sample) implements AdminCommand {
        public static final Wire WIRE = new Wire("cartridge-verify", "<barcode> <sample: 0 for all>", 2, 2,
                a -> new CartridgeVerify(a.get(0), sample(a.get(1))));

        private static int sample(String arg) {
            try {
                int n = Integer.parseInt(arg);
                if (n >= 0) {
                    return n;
                }
            } catch (NumberFormatException e) {
                // answered below
            }
            throw new IllegalArgumentException("cartridge-verify: sample must be a whole number of aggregates"
                    + " (0 for all), not '" + arg + "'");
        }

        @Override
        public Wire wire() {
            return WIRE;
        }

        @Override
        public List<String> args() {
            return List.of(barcode, Integer.toString(sample));
        }

        @Override
        public JsonNode execute(ControlTarget daemon) throws Exception {
            return ControlProtocol.JSON.valueToTree(Await.quick(daemon.scheduler().verifyCartridge(barcode, sample)));
        }
    }

    /**
     * Queues the repack of a cartridge onto other cartridges of {@code family} ({@code -}: its own family) as
     * background work; answers once it is queued. Progress and result are in the status. A media type name
     * ({@code LTO9}, {@code LTO-9}, {@code L9}) instead of a family: onto cartridges of that media type of the
     * cartridge's own family.
     */
    record CartridgeRepack(String barcode, String family) implements AdminCommand {
        /** The family argument that means the source's own family. */
        public static final String OWN_FAMILY = "-";
        public static final Wire WIRE = new Wire("cartridge-repack", "<barcode> <family, - for its own>", 2, 2,
                a -> new CartridgeRepack(a.get(0), a.get(1)));

        @Override
        public Wire wire() {
            return WIRE;
        }

        @Override
        public List<String> args() {
            return List.of(barcode, family);
        }

        @Override
        public JsonNode execute(ControlTarget daemon) throws Exception {
            boolean media = MediaType.byName(family).isPresent();
            return ControlProtocol.JSON.valueToTree(Await.quick(daemon.scheduler().repackCartridge(barcode,
                    OWN_FAMILY.equals(family) || media ? null : family, media ? family : null)));
        }
    }

    /**
     * Starts a media migration: every cartridge of media {@code from} (of {@code family} only; {@code -}: all
     * families) repacked onto media {@code to}, one after another. Progress and result are in the status.
     */
    record Migrate(String from, String to, String family) implements AdminCommand {
        /** The family argument that means every family. */
        public static final String ALL_FAMILIES = "-";
        public static final Wire WIRE = new Wire("migrate", "<from media> <to media> <family, - for all>", 3, 3,
                a -> new Migrate(a.get(0), a.get(1), a.get(2)));

        @Override
        public Wire wire() {
            return WIRE;
        }

        @Override
        public List<String> args() {
            return List.of(from, to, family);
        }

        @Override
        public JsonNode execute(ControlTarget daemon) throws Exception {
            return ControlProtocol.JSON.valueToTree(Await.quick(daemon.scheduler().migrate(from, to,
                    ALL_FAMILIES.equals(family) ? null : family)));
        }
    }

    /** Cancels the running media migration: the repacks under way stop, files already moved stay moved. */
    record MigrateCancel() implements AdminCommand {
        public static final Wire WIRE = new Wire("migrate-cancel", "", 0, 0, a -> new MigrateCancel());

        @Override
        public Wire wire() {
            return WIRE;
        }

        @Override
        public List<String> args() {
            return List.of();
        }

        @Override
        public JsonNode execute(ControlTarget daemon) throws Exception {
            return ControlProtocol.JSON.valueToTree(Await.quick(daemon.scheduler().cancelMigration()));
        }
    }

    /**
     * Queues the relabel of an emptied cartridge for {@code family} ({@code -}: its own) as background work, returning
     * it to the scratch pool; {@code force} also relabels a cartridge in another state with no live file. Answers
     * once the intent is recorded, or with the reason it is refused. The result is in the status.
     */
    record CartridgeRelabel(String barcode, String family, boolean force) implements AdminCommand {
        public static final Wire WIRE = new Wire("cartridge-relabel", "<barcode> <family, - for its own> <force>", 3,
                3, a -> new CartridgeRelabel(a.get(0), a.get(1), Boolean.parseBoolean(a.get(2))));

        @Override
        public Wire wire() {
            return WIRE;
        }

        @Override
        public List<String> args() {
            return List.of(barcode, family, Boolean.toString(force));
        }

        @Override
        public JsonNode execute(ControlTarget daemon) throws Exception {
            return ControlProtocol.JSON.valueToTree(Await.quick(daemon.scheduler().relabelCartridge(barcode,
                    CartridgeRepack.OWN_FAMILY.equals(family) ? null : family, force)));
        }
    }

    /** Cancels the repack of a cartridge: files already moved stay moved, the rest stay on it. */
    record CartridgeRepackCancel(String barcode) implements AdminCommand {
        public static final Wire WIRE = new Wire("cartridge-repack-cancel", "<barcode>", 1, 1,
                a -> new CartridgeRepackCancel(a.get(0)));

        @Override
        public Wire wire() {
            return WIRE;
        }

        @Override
        public List<String> args() {
            return List.of(barcode);
        }

        @Override
        public JsonNode execute(ControlTarget daemon) throws Exception {
            return ControlProtocol.JSON.valueToTree(Await.quick(daemon.scheduler().cancelRepack(barcode)));
        }
    }

    /** Cancels the verification of a cartridge: a queued one at once, a running one after its current aggregate. */
    record CartridgeVerifyCancel(String barcode) implements AdminCommand {
        public static final Wire WIRE = new Wire("cartridge-verify-cancel", "<barcode>", 1, 1,
                a -> new CartridgeVerifyCancel(a.get(0)));

        @Override
        public Wire wire() {
            return WIRE;
        }

        @Override
        public List<String> args() {
            return List.of(barcode);
        }

        @Override
        public JsonNode execute(ControlTarget daemon) throws Exception {
            return ControlProtocol.JSON.valueToTree(Await.quick(daemon.scheduler().cancelVerification(barcode)));
        }
    }

    /** Reads cartridges back and rebuilds their catalog entries from what is on tape, one after the other. */
    record CatalogRebuild(List<String> barcodes) implements AdminCommand {
        public static final Wire WIRE = new Wire("catalog-rebuild", "one or more barcodes", 1, Integer.MAX_VALUE,
                CatalogRebuild::new);

        public CatalogRebuild {
            barcodes = List.copyOf(barcodes);
        }

        @Override
        public Wire wire() {
            return WIRE;
        }

        @Override
        public List<String> args() {
            return barcodes;
        }

        @Override
        public JsonNode execute(ControlTarget daemon) throws Exception {
            List<Scheduler.RebuildReport> reports = new ArrayList<>();
            for (String barcode : barcodes) {
                reports.add(Await.tapeTask(daemon.scheduler().rebuildCartridge(barcode)));
            }
            return ControlProtocol.JSON.valueToTree(reports);
        }
    }

    /** Pauses the automatic reclamation policy (kept in the catalog): no new repack starts until resumed. */
    record ReclaimPause(String reason) implements AdminCommand {
        public static final Wire WIRE = new Wire("reclaim-pause", "<reason>", 1, 1, a -> new ReclaimPause(a.get(0)));

        @Override
        public Wire wire() {
            return WIRE;
        }

        @Override
        public List<String> args() {
            return List.of(reason);
        }

        @Override
        public JsonNode execute(ControlTarget daemon) throws Exception {
            return daemon.reclaim(Await.quick(daemon.scheduler().reclaim().pause(reason)));
        }
    }

    /** Resumes the automatic reclamation policy (kept in the catalog). */
    record ReclaimResume() implements AdminCommand {
        public static final Wire WIRE = new Wire("reclaim-resume", "no arguments", 0, 0, a -> new ReclaimResume());

        @Override
        public Wire wire() {
            return WIRE;
        }

        @Override
        public List<String> args() {
            return List.of();
        }

        @Override
        public JsonNode execute(ControlTarget daemon) throws Exception {
            return daemon.reclaim(Await.quick(daemon.scheduler().reclaim().resume()));
        }
    }

    /** The automatic reclamation policy: on, off or paused, its candidates and repacks. */
    record ReclaimStatus() implements AdminCommand {
        public static final Wire WIRE = new Wire("reclaim-status", "no arguments", 0, 0, a -> new ReclaimStatus());

        @Override
        public Wire wire() {
            return WIRE;
        }

        @Override
        public List<String> args() {
            return List.of();
        }

        @Override
        public JsonNode execute(ControlTarget daemon) throws Exception {
            return daemon.reclaim(Await.quick(daemon.scheduler().reclaim().status()));
        }
    }
}
