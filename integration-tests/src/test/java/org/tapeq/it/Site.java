package org.tapeq.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.tapeq.daemon.Daemon;
import org.tapeq.daemon.config.DaemonConfig;
import org.tapeq.protocol.RequestDirectory;
import org.tapeq.scheduler.tape.sim.SimulatedLibrary;

/**
 * One test site on a temporary directory: the request directory the pool and the daemon share
 * ({@code endit/}), the pool's data directory ({@code pool/}), the daemon's state ({@code state/}: catalog,
 * lock, control socket, simulated tapes) and its YAML configuration ({@code tapeq.yaml}), written the way a
 * site writes it.
 *
 * <p>The library is simulated with real bytes, by default 2000 times faster than tape, so a mount costs tens of
 * milliseconds; the scheduler's waits are the configured ones divided by the same factor. Two tape families:
 * {@code atlas} (storage classes {@code atlas:*}) and {@code cms} ({@code cms:*}), half the cartridges each.
 */
final class Site {

    static final String HSM_TYPE = "osm";
    static final String HSM_NAME = "itest";
    static final String[] FAMILIES = {"atlas", "cms"};

    final Path root;
    final Path endit;
    final Path pool;
    final Path state;
    final RequestDirectory dir;
    private int drives = 2;
    private int speed = 2000;
    private boolean inotify = true;
    private int cartridges = 6;
    private String extraYaml = "";
    private String libraryYaml;
    /**
     * With the library's time {@code speed} times faster, the default {@code blockedLimit} (4 h) would be seconds:
     * a test that takes the drives down on a loaded machine would see its requests fail (every drive down).
     */
    private final Map<String, String> scheduler = new LinkedHashMap<>(Map.of("aggregateWait", "20s",
            "quietTime", "10s", "dwell", "10s", "retryBackoff", "10s", "blockedLimit", "100000h"));
    /** The host's name when the site has several daemons (its own state, configuration and log), else null. */
    private final String host;
    private String catalogYaml;
    private String httpBind = "off";

    Site(Path root) throws IOException {
        this(root, null);
    }

    /**
     * A daemon host of a site whose request directory, pool and simulated library ({@code simlib/}) it shares
     * with the site's other hosts; its state, configuration and log are its own ({@code <host>-state/},
     * {@code <host>.yaml}, {@code <host>.log}).
     */
    Site(Path root, String host) throws IOException {
        this.root = root;
        this.host = host;
        this.endit = root.resolve("endit");
        this.dir = RequestDirectory.create(endit);
        this.pool = Files.createDirectories(root.resolve("pool"));
        this.state = root.resolve(host == null ? "state" : host + "-state");
    }

    /** The {@code catalog:} section's keys below it instead of the SQLite file in the state directory. */
    Site catalog(String yaml) {
        this.catalogYaml = yaml;
        return this;
    }

    /** The HTTP endpoint's address ({@code host:port}), or off (the default). */
    Site http(String bind) {
        this.httpBind = bind;
        return this;
    }

    /** The daemon's log file. */
    Path log() {
        return root.resolve(host == null ? "daemon.log" : host + ".log");
    }

    Site drives(int n) {
        this.drives = n;
        return this;
    }

    /** How much faster than real tape the simulated library runs (the scheduler's waits shrink alike). */
    Site speed(int factor) {
        this.speed = factor;
        return this;
    }

    /**
     * Whether the daemon watches the directory with inotify; without, it finds changes only by its 1 s rescans,
     * as when the pool writes from another host of a shared filesystem (GPFS, NFS).
     */
    Site inotify(boolean on) {
        this.inotify = on;
        return this;
    }

    Site cartridges(int n) {
        this.cartridges = n;
        return this;
    }

    /** How many cartridges the simulated library has. */
    int cartridgeCount() {
        return cartridges;
    }

    /** More YAML lines appended to the configuration (top-level keys not otherwise written). */
    Site extraYaml(String yaml) {
        this.extraYaml = yaml;
        return this;
    }

    /** The {@code library:} section's lines instead of the simulated library (e.g. the SCSI backend). */
    Site library(String yaml) {
        this.libraryYaml = yaml;
        return this;
    }

    /** Sets a key of the {@code scheduler:} section (the defaults here suit the fast simulated library). */
    Site scheduler(String key, String value) {
        scheduler.put(key, value);
        return this;
    }

    String catalogUrl() {
        return "jdbc:sqlite:" + state.resolve("catalog.db");
    }

    Path controlSocket() {
        return state.resolve(Daemon.CONTROL_SOCKET);
    }

    /** The configuration: one directory, a fast simulated library, short waits, no HTTP endpoint. */
    String yaml() {
        StringBuilder schedulerLines = new StringBuilder();
        scheduler.forEach((k, v) -> schedulerLines.append("\n  ").append(k).append(": ").append(v));
        String library = libraryYaml != null ? libraryYaml : String.join("\n",
                "library:",
                "  simulated:",
                "    data: bytes",
                "    speed: " + speed,
                "    drives: " + drives,
                "    cartridges: " + cartridges,
                host == null ? "" : "    dir: " + root.resolve("simlib"));
        return String.join("\n",
                "directories:",
                "  - path: " + endit,
                "    name: it",
                "    stageBuffer: 1GiB",
                "    stageBufferReserve: 1MiB",
                "state: " + state,
                "catalog:",
                catalogYaml != null ? catalogYaml : "  url: " + catalogUrl(),
                library,
                "families:",
                "  - storageClass: \"atlas:.*\"",
                "    family: atlas",
                "  - storageClass: \"cms:.*\"",
                "    family: cms",
                "scheduler:" + schedulerLines,
                "intake:",
                "  rescanInterval: 1s",
                "  inotify: " + inotify,
                "http:",
                "  bind: " + httpBind,
                extraYaml,
                "");
    }

    Path writeConfig() throws IOException {
        Path config = root.resolve(host == null ? "tapeq.yaml" : host + ".yaml");
        Files.writeString(config, yaml());
        return config;
    }

    /** Starts the real daemon in this JVM from the YAML file. */
    Daemon startDaemon() throws Exception {
        return Daemon.start(DaemonConfig.load(writeConfig()));
    }

    /** Labels the first half of the cartridges for atlas, the rest for cms (a fresh library is blank). */
    static void label(Daemon daemon) throws Exception {
        List<String> barcodes = ((SimulatedLibrary) daemon.library()).barcodes();
        for (int i = 0; i < barcodes.size(); i++) {
            daemon.scheduler().labelCartridge(barcodes.get(i), familyOfCartridge(i, barcodes.size()), false)
                    .get(60, TimeUnit.SECONDS);
        }
    }

    static String familyOfCartridge(int index, int count) {
        return FAMILIES[index * FAMILIES.length / count];
    }

    // ---------------------------------------------------------------- looking at the directory

    static boolean exists(Path p) {
        return Files.exists(p, LinkOption.NOFOLLOW_LINKS);
    }

    /** Names in a subdirectory of the request directory, sorted. */
    List<String> list(String sub) throws IOException {
        try (var s = Files.list(endit.resolve(sub))) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /** Temporary files (names starting with a dot) in in/. */
    List<String> temporariesInIn() throws IOException {
        return list(RequestDirectory.IN).stream().filter(n -> n.startsWith(".")).toList();
    }
}
