package org.tapeq.scheduler.tape.scsi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.time.RealTimeEventLoop;

/**
 * The SCSI backend's robot moves apart from the drive's load and unload (a site whose changer one tape server
 * drives): two libraries on one fake tape host ({@link FakeTapeHost}) stand for the changer's host and the drive's,
 * and the commands each ran are compared.
 */
class ScsiRobotSplitTest {

    private static final String X = FakeTapeHost.X;
    private static final String Y = FakeTapeHost.Y;

    @TempDir
    Path host;

    private final RealTimeEventLoop loop = new RealTimeEventLoop("test-loop", 1);
    private ScsiLibrary changerHost;
    private ScsiLibrary driveHost;

    @BeforeEach
    void start() throws Exception {
        changerHost = new ScsiLibrary(loop, FakeTapeHost.install(host, null, "changer"), (bytes, barcode) -> { });
        driveHost = new ScsiLibrary(loop, FakeTapeHost.settings(host, null, "drive"), (bytes, barcode) -> { });
    }

    @AfterEach
    void close() {
        changerHost.close();
        driveHost.close();
        loop.close();
    }

    @Test
    void theChangersHostRunsEveryMtxMove_theDrivesHostOnlyMt() throws Exception {
        await(done -> changerHost.robotLoad("d0", X, done));
        await(done -> driveHost.load("d0", X, done));
        assertEquals(X, Files.readString(host.resolve("state/drive")).strip(), "the cartridge is in the drive");
        await(done -> driveHost.unload("d0", done));
        await(done -> changerHost.robotUnload("d0", done));
        assertEquals(X, Files.readString(host.resolve("state/slot1")).strip(), "back in its slot");

        List<String> commands = FakeTapeHost.commands(host);
        assertEquals(List.of("changer mtx status", "changer mtx load", "changer mtx status", "changer mtx unload"),
                commands.stream().filter(c -> c.startsWith("changer ")).toList(),
                "the changer's host runs only robot commands: " + commands);
        assertTrue(commands.stream().filter(c -> c.startsWith("drive ")).allMatch(c -> c.startsWith("drive mt ")),
                "the drive's host runs no robot command: " + commands);
        assertTrue(commands.contains("drive mt offline"), "the drive ejected the tape: " + commands);
        assertTrue(commands.indexOf("drive mt offline") < commands.lastIndexOf("changer mtx unload"),
                "ejected before the robot took it: " + commands);
    }

    @Test
    void aRobotLoadIntoAFullDrive_failsWithoutAMove() throws Exception {
        await(done -> changerHost.robotLoad("d0", X, done));
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> await(done -> changerHost.robotLoad("d0", Y, done)));
        TapeFault f = assertInstanceOf(TapeFault.class, e.getCause());
        assertEquals(FaultKind.DRIVE, f.kind());
        assertTrue(f.getMessage().contains("the drive already holds " + X), f.getMessage());
        assertEquals(1, FakeTapeHost.commands(host).stream().filter(c -> c.endsWith("mtx load")).count(),
                "one robot load only");
        assertEquals(Y, Files.readString(host.resolve("state/slot2")).strip(), Y + " stayed in its slot");
    }

    private static void await(Consumer<Completion<Void>> op) throws Exception {
        CompletableFuture<Void> f = new CompletableFuture<>();
        op.accept(new Completion<>() {
            @Override
            public void succeeded(Void value) {
                f.complete(value);
            }

            @Override
            public void failed(TapeFault fault) {
                f.completeExceptionally(fault);
            }
        });
        f.get(60, TimeUnit.SECONDS);
    }
}
