package org.tapeq.daemon;

import org.tapeq.daemon.control.ControlProtocol;
import com.fasterxml.jackson.databind.JsonNode;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.zip.Adler32;

import org.tapeq.daemon.bridge.BridgeStatus;
import org.tapeq.daemon.config.DaemonConfig;
import org.tapeq.protocol.AtomicFiles;
import org.tapeq.protocol.ErrorReport;
import org.tapeq.protocol.ProtocolFiles;
import org.tapeq.protocol.Request;
import org.tapeq.protocol.RequestCodec;
import org.tapeq.protocol.RequestDirectory;
import org.tapeq.scheduler.engine.SchedulerStatus;
import org.tapeq.testing.support.Poll;

/**
 * A daemon on a temporary request directory with a fast simulated library, and helpers that play the pool's
 * side the way the ENDIT provider (no extension) or tapeq's provider (with it) writes requests.
 */
final class DaemonFixture implements AutoCloseable {

    static final Duration WAIT = Duration.ofSeconds(30);
    /** How much faster than real time the simulated library (and the scheduler's loop) runs. */
    static final int SPEED = 2000;
    /** Drive states in which a drive moves no data and no cartridge. */
    private static final Set<String> QUIET_DRIVE_STATES = Set.of("empty", "idle", "dwell", "down");

    final Path root;
    final Path endit;
    final RequestDirectory dir;
    final Path pool;
    private final String extraYaml;
    /** Extra lines for the directory's entry, e.g. {@code "    stageBuffer: 1MB"}. */
    String directoryYaml = "";
    /** Further keys of the scheduler section, each line indented by two spaces. */
    String schedulerYaml = "";
    /**
     * How long requests may wait with every drive down before they fail ({@code scheduler.blockedLimit}): the
     * library's time runs {@value #SPEED} times faster, so the default 4 h would be 7.2 s, and a test that takes
     * the drives down on a loaded machine would see its requests fail instead of what it waits for.
     */
    String blockedLimit = "100000h";
    /** Whether the daemon uses inotify; without it only rescans (every second) see changes, as on NFS. */
    boolean inotify = true;
    /** Time between the daemon's full rescans; long when a test must know every read was caused by an event. */
    String rescanInterval = "1s";
    /** Cartridges of the simulated library. */
    int cartridges = 4;
    Daemon daemon;

    DaemonFixture(Path root, String extraYaml) throws IOException {
        this.root = root;
        this.endit = root.resolve("endit");
        this.dir = RequestDirectory.create(endit);
        this.pool = Files.createDirectories(root.resolve("pool"));
        this.extraYaml = extraYaml;
    }

    /** The configuration: one directory, 2 drives, 4 cartridges (or {@link #cartridges}), tape time x2000, short waits. */
    String yaml() {
        return String.join("\n",
                "directories:",
                "  - path: " + endit,
                "    name: test",
                directoryYaml,
                "state: " + root.resolve("state"),
                "library:",
                "  simulated:",
                "    speed: " + SPEED,
                "    drives: 2",
                "    cartridges: " + cartridges,
                "families:",
                "  - storageClass: \"atlas:.*\"",
                "    family: atlas",
                "scheduler:",
                "  aggregateWait: 20s",
                "  quietTime: 10s",
                "  dwell: 10s",
                "  mergeGap: 0",
                "  blockedLimit: " + blockedLimit,
                schedulerYaml,
                "intake:",
                "  rescanInterval: " + rescanInterval,
                "  inotify: " + inotify,
                "http:",
                "  bind: 127.0.0.1:0",
                extraYaml,
                "");
    }

    Daemon start() throws Exception {
        return start(step -> { });
    }

    /** Starts the daemon, telling {@code startStep} of each step of its start (on the starting thread). */
    Daemon start(java.util.function.Consumer<Daemon.StartStep> startStep) throws Exception {
        Path config = root.resolve("tapeq.yaml");
        Files.writeString(config, yaml());
        daemon = Daemon.start(DaemonConfig.load(config), org.tapeq.scheduler.engine.drive.DriveObserver.NONE,
                startStep);
        return daemon;
    }

    /** Labels every cartridge for family atlas (a fresh library has blank cartridges). */
    void labelAll() throws Exception {
        for (String b : ((org.tapeq.scheduler.tape.sim.SimulatedLibrary) daemon.library()).barcodes()) {
            daemon.scheduler().labelCartridge(b, "atlas", false).get(30, TimeUnit.SECONDS);
        }
    }

    void stop() {
        if (daemon != null) {
            daemon.close();
            daemon = null;
        }
    }

    @Override
    public void close() {
        stop();
    }

    // ---------------------------------------------------------------- what the daemon has done

    BridgeStatus bridge() {
        return daemon.status().directories().get(0);
    }

    /**
     * The directory's status from a snapshot its thread took after this call ({@link Daemon#freshStatus}), for an
     * assertion that nothing happened or a count read right after the event: {@link #bridge} may be 250 ms old.
     */
    BridgeStatus freshBridge() {
        try {
            return daemon.freshStatus().get(WAIT.toMillis(), TimeUnit.MILLISECONDS).directories().get(0);
        } catch (Exception e) {
            throw new IllegalStateException("no status taken after asking within " + WAIT, e);
        }
    }

    /**
     * Waits until the daemon has listed the request directory in a rescan that began after this call, and has
     * read and taken every request file found: whatever the directory held at the call has been looked at. The
     * status snapshot runs on the bridge's thread, where rescans run too, so the first rescan it does not count
     * begins after it.
     */
    void awaitRescan() throws InterruptedException {
        long seen = bridge().rescans();
        await("a rescan after rescan " + seen + " and every request file it found taken", () -> {
            BridgeStatus s = bridge();
            return s.rescans() > seen && s.intakeBacklog() == 0;
        });
    }

    /** Waits until the bridge has read {@code count} request files since {@code before} and taken every one. */
    void awaitReads(long before, long count) throws InterruptedException {
        await(count + " request file(s) read after " + before, () -> {
            BridgeStatus s = bridge();
            return s.reads() >= before + count && s.intakeBacklog() == 0;
        });
    }

    /**
     * Waits until the scheduler has nothing to do: no queue with work, no drive mounting, reading, writing or
     * unmounting. A request still queued keeps its queue non-empty until its read or write is over.
     */
    void awaitSchedulerQuiet() throws InterruptedException {
        await("the scheduler has nothing to do", () -> quiet(schedulerStatus()));
    }

    static boolean quiet(SchedulerStatus s) {
        return s.queueCount() == 0 && s.drives().stream().allMatch(d -> QUIET_DRIVE_STATES.contains(d.state()));
    }

    /** The scheduler's status now, asked of its loop (what {@code tapeq status} shows may be 250 ms older). */
    SchedulerStatus schedulerStatus() {
        try {
            return daemon.scheduler().status(0).get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("no scheduler status", e);
        }
    }

    // ---------------------------------------------------------------- the pool's side

    static String newPnfsId() {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        return String.format(Locale.ROOT, "0000%016X%016X", r.nextLong(), r.nextLong());
    }

    static byte[] randomBytes(int n) {
        byte[] b = new byte[n];
        ThreadLocalRandom.current().nextBytes(b);
        return b;
    }

    static String adler32(byte[] data) {
        Adler32 a = new Adler32();
        a.update(data);
        return String.format(Locale.ROOT, "%08x", a.getValue());
    }

    /** A replica in the pool, hard-linked into out/, after its request file (the providers' order). */
    void flush(String pnfsid, byte[] content, boolean extension) throws IOException {
        Path replica = pool.resolve(pnfsid);
        Files.write(replica, content);
        Request.Extension x = extension ? new Request.Extension("req-" + pnfsid, 0, null, null, 0) : null;
        writeRequest(pnfsid, Request.flush(content.length, System.currentTimeMillis() / 1000, "atlas:raw",
                "/pnfs/test/atlas/ds1/" + pnfsid, "adler32", adler32(content), x));
        Files.createLink(dir.outLink(pnfsid), replica);
    }

    /** A file flushed through tapeq's provider path and the answer collected: it is on tape, off the pool. */
    String onTape(byte[] content) throws Exception {
        String pnfsid = newPnfsId();
        flush(pnfsid, content, true);
        ErrorReport e = awaitFlush(pnfsid);
        if (e != null) {
            fail("flush of " + pnfsid + " failed: " + e);
        }
        collect(pnfsid);
        return pnfsid;
    }

    /** Takes both drives out of service, so requests stay queued. */
    void drivesDown() throws Exception {
        daemon.scheduler().driveDown("drive0", "test").get();
        daemon.scheduler().driveDown("drive1", "test").get();
    }

    void drivesUp() throws Exception {
        daemon.scheduler().driveUp("drive0").get();
        daemon.scheduler().driveUp("drive1").get();
    }

    void stage(String pnfsid, long size, String adler32, boolean extension) throws IOException {
        Request.Extension x = extension ? new Request.Extension("req-" + pnfsid, 0, null, null, 0) : null;
        writeRequest(pnfsid, Request.stage(size, System.currentTimeMillis() / 1000, "atlas:raw",
                "/pnfs/test/atlas/ds1/" + pnfsid, 4242L, extension ? "adler32" : null, extension ? adler32 : null, x));
    }

    void writeRequest(String pnfsid, Request r) throws IOException {
        AtomicFiles.write(dir.requestFile(pnfsid), RequestCodec.toBytes(r));
    }

    /** Waits for the daemon's answer to a flush: link removed (done) or an error file. */
    ErrorReport awaitFlush(String pnfsid) throws Exception {
        await("flush of " + pnfsid + " answered", () -> !exists(dir.outLink(pnfsid)) || exists(dir.errorFile(pnfsid)));
        return error(pnfsid);
    }

    /** Waits for the daemon's answer to a stage: the file in in/ or an error file. */
    ErrorReport awaitStage(String pnfsid) throws Exception {
        await("stage of " + pnfsid + " answered", () -> exists(dir.inFile(pnfsid)) || exists(dir.errorFile(pnfsid)));
        return error(pnfsid);
    }

    /** Waits for an error file (a stage whose in/ file may already exist). */
    ErrorReport awaitStageError(String pnfsid) throws Exception {
        await("error file for " + pnfsid, () -> exists(dir.errorFile(pnfsid)));
        return error(pnfsid);
    }

    ErrorReport error(String pnfsid) throws IOException {
        Path err = dir.errorFile(pnfsid);
        return exists(err) ? ErrorReport.parse(ProtocolFiles.readSmallFile(err, 65536)) : null;
    }

    /** The pool collects an answer: removes the request (and error file), as the providers do. */
    void collect(String pnfsid) throws IOException {
        Files.deleteIfExists(dir.requestFile(pnfsid));
        Files.deleteIfExists(dir.errorFile(pnfsid));
        Files.deleteIfExists(dir.inFile(pnfsid));
        Files.deleteIfExists(dir.checksumFile(pnfsid));
    }

    static boolean exists(Path p) {
        return Files.exists(p, LinkOption.NOFOLLOW_LINKS);
    }

    List<String> list(String sub) throws IOException {
        try (var s = Files.list(endit.resolve(sub))) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /** {@link Poll#until} with this fixture's {@link #WAIT}. */
    static void await(String what, BooleanSupplier condition) throws InterruptedException {
        Poll.until(what, WAIT, condition::getAsBoolean);
    }

    /** Calls {@code command} on the running daemon's control socket, as {@code tapeq} does. */
    JsonNode control(String command, List<String> args) throws Exception {
        return ControlProtocol.call(root.resolve("state").resolve(Daemon.CONTROL_SOCKET), command, args);
    }

}
