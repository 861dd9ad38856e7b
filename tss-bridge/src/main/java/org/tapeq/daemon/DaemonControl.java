package org.tapeq.daemon;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.tapeq.daemon.control.ControlProtocol;
import org.tapeq.daemon.control.ControlServer;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.engine.Scheduler;

/** The control socket's commands, carried out on the running daemon. */
final class DaemonControl implements ControlServer.Handler {

    /** Label and rebuild mount a cartridge; they may wait for a drive. */
    private static final long TAPE_TASK_TIMEOUT_MINUTES = 120;
    private static final long QUICK_TIMEOUT_SECONDS = 30;

    private static final ObjectMapper JSON = ControlProtocol.JSON;

    private final Daemon daemon;

    DaemonControl(Daemon daemon) {
        this.daemon = daemon;
    }

    @Override
    public JsonNode handle(String command, List<String> args) throws Exception {
        Scheduler s = daemon.scheduler();
        switch (command) {
            case "status":
                return JSON.valueToTree(daemon.status());
            case "drive-down":
                arity(command, args, 2, "<drive> <reason>");
                return done(s.driveDown(args.get(0), args.get(1)));
            case "drive-up":
                arity(command, args, 1, "<drive>");
                return done(s.driveUp(args.get(0)));
            case "drive-unload-idle":
                arity(command, args, 0, "no arguments");
                return JSON.valueToTree(await(s.unloadIdleDrives(), QUICK_TIMEOUT_SECONDS, TimeUnit.SECONDS));
            case "inventory":
                arity(command, args, 0, "no arguments");
                return JSON.valueToTree(await(s.syncInventory(), TAPE_TASK_TIMEOUT_MINUTES, TimeUnit.MINUTES));
            case "cartridge-list":
                return JSON.valueToTree(daemon.catalog().cartridges());
            case "cartridge-disable":
                arity(command, args, 2, "<barcode> <reason>");
                return done(s.disableCartridge(args.get(0), args.get(1)));
            case "cartridge-enable":
                arity(command, args, 1, "<barcode>");
                return done(s.enableCartridge(args.get(0)));
            case "cartridge-label":
                arity(command, args, 3, "<barcode> <family> <force: true|false>");
                CartridgeRecord labelled = await(s.labelCartridge(args.get(0), args.get(1),
                        Boolean.parseBoolean(args.get(2))), TAPE_TASK_TIMEOUT_MINUTES, TimeUnit.MINUTES);
                return JSON.valueToTree(labelled);
            case "catalog-rebuild":
                if (args.isEmpty()) {
                    throw new IllegalArgumentException("catalog-rebuild needs one or more barcodes");
                }
                List<Scheduler.RebuildReport> reports = new ArrayList<>();
                for (String barcode : args) {
                    reports.add(await(s.rebuildCartridge(barcode), TAPE_TASK_TIMEOUT_MINUTES, TimeUnit.MINUTES));
                }
                return JSON.valueToTree(reports);
            default:
                throw new IllegalArgumentException("unknown command '" + command + "'");
        }
    }

    private static void arity(String command, List<String> args, int n, String usage) {
        if (args.size() != n) {
            throw new IllegalArgumentException(command + " takes " + usage);
        }
    }

    private static JsonNode done(CompletableFuture<Void> f) throws Exception {
        await(f, QUICK_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        return JSON.getNodeFactory().textNode("done");
    }

    private static <T> T await(CompletableFuture<T> f, long timeout, TimeUnit unit) throws Exception {
        try {
            return f.get(timeout, unit);
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof IllegalArgumentException) {
                throw (IllegalArgumentException) c;
            }
            throw c instanceof Exception ? (Exception) c : e;
        } catch (TimeoutException e) {
            throw new TimeoutException("no answer within " + timeout + " " + unit.toString().toLowerCase()
                    + "; the task continues in the daemon");
        }
    }
}
