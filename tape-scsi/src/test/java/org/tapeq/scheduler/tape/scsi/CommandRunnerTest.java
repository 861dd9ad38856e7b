package org.tapeq.scheduler.tape.scsi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.time.RealTimeEventLoop;

class CommandRunnerTest {

    private final RealTimeEventLoop loop = new RealTimeEventLoop("test-loop", 1);
    private final CommandRunner local = new CommandRunner(loop, List.of(), 2);
    private final CommandRunner prefixed = new CommandRunner(loop, List.of("sh", "-c"), 2);

    @AfterEach
    void close() {
        local.close();
        prefixed.close();
        loop.close();
    }

    @Test
    void run_failingCommand_capturesOutputErrorAndExitCode() {
        CommandRunner.Result r = local.run("echo out; echo err >&2; exit 3", 10_000);
        assertEquals(3, r.exitCode());
        assertEquals("out\n", r.stdout());
        assertEquals("err\n", r.stderr());
        assertFalse(r.ok());
        assertEquals("err (exit code 3)", r.diagnostic());
    }

    @Test
    void run_throughPrefix_getsTheQuotedLineAsOneArgument() {
        CommandRunner.Result r = prefixed.run(Shell.line("printf", "%s|", "a b", "it's"), 10_000);
        assertTrue(r.ok(), r.diagnostic());
        assertEquals("a b|it's|", r.stdout());
    }

    @Test
    void run_pastItsTimeout_isKilledAndSaysSo() {
        long t0 = System.nanoTime();
        CommandRunner.Result r = local.run("sleep 30", 300);
        long millis = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(r.timedOut());
        assertFalse(r.ok());
        assertTrue(millis < 10_000, "killed after " + millis + " ms");
        assertEquals(FaultKind.DRIVE, FaultMap.kind(FaultMap.Op.POSITION, r));
        assertEquals(FaultKind.ROBOT, FaultMap.kind(FaultMap.Op.ROBOT, r));
    }

    @Test
    void run_killedWhileSomethingElseHoldsItsPipes_returnsAfterTheGrace() {
        // A detached process keeps the command's output pipes open after the kill, as an ssh ControlMaster
        // does while the remote side of a killed command hangs.
        long t0 = System.nanoTime();
        CommandRunner.Result r = local.run("(setsid sleep 20 &); echo started; sleep 30", 300);
        long millis = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(r.timedOut());
        assertTrue(millis < 10_000, "returned after " + millis + " ms");
    }

    @Test
    void run_throughAPrefixThatDetaches_theRemoteSideEndsAtTheLimitToo() throws Exception {
        // Like ssh: the command runs detached from the local process, so killing that does not stop it.
        java.nio.file.Path pidFile = java.nio.file.Files.createTempFile("tapeq-remote-", ".pid");
        CommandRunner detaching = new CommandRunner(loop, List.of("sh", "-c",
                "(setsid sh -c \"$0\" >/dev/null 2>&1 &); sleep 60"), 1);
        try {
            CommandRunner.Result r = detaching.run("echo $$ > " + pidFile + "; exec sleep 60", 1_000);
            assertTrue(r.timedOut());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            long pid = -1;
            while (System.nanoTime() < deadline) {
                String text = java.nio.file.Files.readString(pidFile).strip();
                if (!text.isEmpty()) {
                    pid = Long.parseLong(text);
                    if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                        Thread.sleep(100); // polling for the remote command's end, not timing it
                        continue;
                    }
                    break;
                }
                Thread.sleep(100);
            }
            long remote = pid;
            assertTrue(remote > 0, "the remote command started");
            assertFalse(ProcessHandle.of(remote).map(ProcessHandle::isAlive).orElse(false),
                    "the remote command " + remote + " still runs 30 s after its 1 s limit");
        } finally {
            detaching.close();
            java.nio.file.Files.deleteIfExists(pidFile);
        }
    }

    /**
     * A prefix that behaves like ssh where it matters here: the remote command runs detached from the local
     * process (killing that does not stop it), and the prefix ends with the remote command's exit code.
     */
    private CommandRunner detachedRemote(java.nio.file.Path dir) {
        String rc = dir.resolve("rc").toString();
        return new CommandRunner(loop, List.of("sh", "-c", "(setsid sh -c \"$0; echo \\$? > " + rc
                + "\" >/dev/null 2>&1 &); while [ ! -s " + rc + " ]; do sleep 0.1; done; exit $(cat " + rc + ")"), 1);
    }

    @Test
    void run_remoteCommandIgnoringTerm_localSideWaitsUntilTheTapeHostEndedIt(@TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Path pidFile = dir.resolve("pid");
        CommandRunner remote = detachedRemote(dir);
        try {
            // ignores timeout's TERM: ends only at its KILL, 5 s after the 1 s limit
            CommandRunner.Result r = remote.run("echo $$ > " + pidFile + "; trap '' TERM; exec sleep 60", 1_000);
            long pid = Long.parseLong(java.nio.file.Files.readString(pidFile).strip());
            assertFalse(running(pid), "the command still runs on the tape host although the local side gave up: " + r);
            assertFalse(r.timedOut(), "the tape host ended it, not the local watchdog: " + r);
            assertEquals(CommandRunner.REMOTE_KILLED_EXIT, r.exitCode(), r.toString());
        } finally {
            remote.close();
        }
    }

    @Test
    void drain_remoteTransferStallsBehindAPrefix_returnsOnlyAfterTheTapeHostEndedIt(@TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Path pidFile = dir.resolve("pid");
        CommandRunner remote = detachedRemote(dir);
        try {
            // silent (a dd stuck on the drive) far longer than the 0.4 s stall limit; the tape host's timeout
            // ends it at the 1 s overall limit
            CommandRunner.Result r = remote.drain("echo $$ > " + pidFile + "; exec sleep 60", 400, 1_000,
                    in -> in.transferTo(OutputStream.nullOutputStream()));
            assertTrue(r.timedOut(), "the local stall limit ended the transfer here: " + r);
            long pid = Long.parseLong(java.nio.file.Files.readString(pidFile).strip());
            assertFalse(running(pid), "the transfer still runs on the tape host although drain returned: " + r);
        } finally {
            remote.close();
        }
    }

    /** Whether the process runs (a zombie left for its new parent to reap has ended). */
    private static boolean running(long pid) throws IOException {
        java.nio.file.Path stat = java.nio.file.Path.of("/proc", Long.toString(pid), "stat");
        try {
            String text = java.nio.file.Files.readString(stat);
            return !text.substring(text.lastIndexOf(')') + 1).strip().startsWith("Z");
        } catch (java.nio.file.NoSuchFileException e) {
            return false;
        }
    }

    @Test
    void localLimit_behindAPrefix_exceedsTheRemoteLimitAndItsKillGrace() {
        assertEquals(1_500, local.localLimitMillis(1_500));
        assertEquals(2_000 + 5_000 + CommandRunner.LOCAL_MARGIN_MILLIS, prefixed.localLimitMillis(1_500));
        assertTrue(prefixed.remote("true", 1_500).startsWith("timeout -k 5 2 "), prefixed.remote("true", 1_500));
    }

    @Test
    void drain_remoteTransferThatKeepsMoving_endsAtItsLimitOnTheTapeHost() {
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        // never stalls (a chunk every 0.1 s), never ends by itself; the test's own bound is far above the limit
        CommandRunner.Result r = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> prefixed.drain(
                "while :; do echo x; sleep 0.1; done", 10_000, 1_000, in -> in.transferTo(got)));
        assertFalse(r.ok());
        assertTrue(got.size() > 0, "data moved");
        assertEquals(CommandRunner.REMOTE_TIMEOUT_EXIT, r.exitCode(), r.toString());
        assertTrue(r.diagnostic().contains("timed out on the tape host"), r.diagnostic());
    }

    @Test
    void feed_localTransferThatKeepsMoving_killedAtItsLimit() {
        CommandRunner.Result r = local.feed("cat > /dev/null", 10_000, 1_000, in -> {
            for (int i = 0; i < 600; i++) { // 60 s of chunks, never stalling
                in.write(new byte[100]);
                in.flush();
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    throw new IOException(e);
                }
            }
        });
        assertTrue(r.timedOut(), r.toString());
    }

    @Test
    void drain_streamThatKeepsMoving_outlivesTheStallLimit() {
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        long t0 = System.nanoTime();
        CommandRunner.Result r = local.drain("for i in 1 2 3 4 5 6; do head -c 1000 /dev/zero; sleep 0.25; done",
                700, 60_000, in -> in.transferTo(got));
        long millis = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(r.ok(), r.diagnostic());
        assertEquals(6000, got.size());
        assertTrue(millis > 700, "the stream should have taken longer than the stall limit, took " + millis);
    }

    @Test
    void drain_streamThatStalls_isKilled() {
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        CommandRunner.Result r = local.drain("head -c 10 /dev/zero; sleep 30", 400, 60_000, in -> in.transferTo(got));
        assertTrue(r.timedOut());
        assertEquals(10, got.size());
    }

    @Test
    void feed_throughPrefix_streamsStdinToTheCommand() {
        byte[] data = new byte[3 << 20];
        CommandRunner.Result r = prefixed.feed("wc -c", 10_000, 60_000, in -> in.write(data));
        assertTrue(r.ok(), r.diagnostic());
        assertEquals(String.valueOf(data.length), r.stdout().strip());
        assertNull(r.ioError());
    }

    @Test
    void feed_commandThatExitsEarly_reportsItsErrorNotAHang() {
        CommandRunner.Result r = local.feed("echo 'No space left on device' >&2; exit 1", 10_000, 60_000, in -> {
            byte[] chunk = new byte[1 << 16];
            for (int i = 0; i < 1000; i++) {
                in.write(chunk);
            }
        });
        assertFalse(r.ok());
        assertEquals(FaultKind.TAPE_FULL, FaultMap.kind(FaultMap.Op.WRITE, r));
    }

    @Test
    void feed_failingFeeder_reportsTheFeedersError() {
        CommandRunner.Result r = local.feed("cat > /dev/null", 10_000, 60_000, in -> {
            in.write(new byte[10]);
            throw new IOException("source vanished");
        });
        assertEquals("source vanished", r.ioError().getMessage());
    }

    @Test
    void submit_completesOnTheLoopThread() throws Exception {
        CompletableFuture<Boolean> onLoop = new CompletableFuture<>();
        CompletableFuture<TapeFault> fault = new CompletableFuture<>();
        local.submit("test", () -> local.run("true", 1000).ok(), completion(onLoop, null));
        local.submit("test", () -> {
            throw new TapeFault(FaultKind.MEDIA, "bad spot");
        }, completion(null, fault));
        assertTrue(onLoop.get(10, TimeUnit.SECONDS));
        assertEquals(FaultKind.MEDIA, fault.get(10, TimeUnit.SECONDS).kind());
    }

    private <T> Completion<T> completion(CompletableFuture<Boolean> okOnLoop, CompletableFuture<TapeFault> failed) {
        return new Completion<>() {
            @Override
            public void succeeded(T value) {
                okOnLoop.complete(loop.inLoop() && Boolean.TRUE.equals(value));
            }

            @Override
            public void failed(TapeFault f) {
                if (loop.inLoop()) {
                    failed.complete(f);
                } else {
                    failed.completeExceptionally(new AssertionError("not on the loop"));
                }
            }
        };
    }
}
