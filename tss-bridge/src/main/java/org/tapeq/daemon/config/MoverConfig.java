package org.tapeq.daemon.config;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.tapeq.config.ConfigException;
import org.tapeq.config.ConfigNode;
import org.tapeq.mover.MoverServer;
import org.tapeq.mover.SiteIdentity;

/**
 * The configuration of one data mover ({@code tapeq mover}), a file of its own on its tape server: its name, the
 * address it listens on, the drives it owns, and the library those drives are in ({@code library:}, as in the
 * daemon's file). Validated here, once.
 *
 * @param name          the mover's name, as the scheduler's {@code movers.servers[].name} gives it
 * @param identity      its site ({@code mover.site}, the scheduler's {@code catalog.site}) and the site's token
 *                      ({@code mover.tokenFile}, the same as the scheduler's {@code movers.tokenFile})
 * @param listen        where its gRPC server listens
 * @param drives        the drives it owns (each must be a drive of its library)
 * @param state         its own directory (the simulated library's files by default)
 * @param stallMillis   how long a transfer may stand still before the mover gives it up
 * @param library       its library
 * @param sharedPools   the request directories whose pool files it reads and writes itself on the shared pool
 *                      filesystem ({@code pools.shared: true}, {@code pools.directories}); empty: the bytes cross
 *                      the network to and from the scheduler
 * @param changer       it drives the site's changer ({@code mover.changer}): it takes robot commands for any
 *                      mover's drive, which every other mover refuses
 */
public record MoverConfig(String name, SiteIdentity identity, InetSocketAddress listen, List<String> drives, Path state, long stallMillis,
                          LibraryConfig library, List<Path> sharedPools,
                          boolean changer) {

    static final String MOVER = "mover";
    static final String NAME = "name";
    static final String LISTEN = "listen";
    static final String DRIVES = "drives";
    static final String STALL_TIMEOUT = "stallTimeout";
    static final String SITE = "site";
    static final String TOKEN_FILE = "tokenFile";
    static final String CHANGER = "changer";
    static final List<String> MOVER_KEYS = List.of(NAME, SITE, TOKEN_FILE, LISTEN, DRIVES, STALL_TIMEOUT, CHANGER);
    static final String STATE = "state";
    static final String POOLS = "pools";
    static final String SHARED = "shared";
    static final String POOL_DIRECTORIES = "directories";
    static final String POOL_PATH = "path";
    static final List<String> KEYS = List.of(MOVER, STATE, DaemonConfig.LIBRARY, POOLS);
    public static final Path DEFAULT_STATE = Path.of("/var/lib/tapeq-mover");
    private static final Pattern HOST_PORT = Pattern.compile("(\\[[0-9A-Fa-f:.]+]|[^:\\[\\]]+):(\\d{1,5})");

    /** Reads and validates {@code file}; errors name it. */
    public static MoverConfig load(Path file) {
        String yaml;
        try {
            yaml = Files.readString(file);
        } catch (IOException e) {
            throw new ConfigException(file + ": cannot read: " + e, e);
        }
        return parse(yaml, file.toString());
    }

    public static MoverConfig parse(String yaml, String source) {
        ConfigNode root = ConfigNode.parse(yaml, source);
        root.allow(KEYS);
        ConfigNode mover = root.map(MOVER);
        mover.allow(MOVER_KEYS);
        String name = mover.requiredString(NAME);
        if (!MoversConfig.NAME_FORMAT.matcher(name).matches()) {
            throw mover.error(NAME, "\"" + name + "\" must be 1 to 64 letters, digits, '.', '_' or '-'");
        }
        String site = mover.requiredString(SITE);
        if (!MoversConfig.NAME_FORMAT.matcher(site).matches()) {
            throw mover.error(SITE, "\"" + site + "\" must be 1 to 64 letters, digits, '.', '_' or '-'");
        }
        SiteIdentity identity = new SiteIdentity(site, MoversConfig.token(mover, TOKEN_FILE));
        String listen = mover.requiredString(LISTEN);
        Matcher m = HOST_PORT.matcher(listen);
        if (!m.matches() || Integer.parseInt(m.group(2)) < 1 || Integer.parseInt(m.group(2)) > 65535) {
            throw mover.error(LISTEN, "\"" + listen + "\" is not host:port (e.g. 0.0.0.0:9280)");
        }
        InetSocketAddress address = new InetSocketAddress(m.group(1).replaceAll("^\\[|]$", ""),
                Integer.parseInt(m.group(2)));
        if (address.isUnresolved()) {
            throw mover.error(LISTEN, "cannot resolve host \"" + m.group(1) + "\"");
        }
        List<String> drives = MoversConfig.drives(mover, DRIVES);
        long stall = mover.duration(STALL_TIMEOUT, MoverServer.DEFAULT_STALL_MILLIS);
        if (stall <= 0) {
            throw mover.error(STALL_TIMEOUT, "must be positive");
        }
        Path state = root.path(STATE, DEFAULT_STATE);
        LibraryConfig library = LibraryConfig.parse(root.map(DaemonConfig.LIBRARY), state);
        if (library.backend() == LibraryConfig.Backend.SIMULATED) {
            List<String> simulated = java.util.stream.IntStream.range(0, library.simulated().drives())
                    .mapToObj(i -> "drive" + i).toList();
            for (String d : drives) {
                if (!simulated.contains(d)) {
                    throw mover.error(DRIVES, "drive " + d + " is not one of the simulated library's " + simulated);
                }
            }
        }
        return new MoverConfig(name, identity, address, drives, state, stall, library, sharedPools(root),
                mover.bool(CHANGER, false));
    }

    /**
     * {@code pools:}: with {@code shared: true}, the request directories ({@code directories: - path: ...}, as the
     * daemon's {@code directories}) whose stage targets the mover writes itself; nothing else on the pool
     * filesystem is touched. Left out or {@code shared: false}: none.
     */
    private static List<Path> sharedPools(ConfigNode root) {
        if (!root.has(POOLS)) {
            return List.of();
        }
        ConfigNode pools = root.map(POOLS);
        pools.allow(List.of(SHARED, POOL_DIRECTORIES));
        boolean shared = pools.bool(SHARED, false);
        List<ConfigNode> items = pools.list(POOL_DIRECTORIES);
        if (!shared) {
            if (!items.isEmpty()) {
                throw pools.error(POOL_DIRECTORIES, "is set but shared is not true: set shared: true for the mover "
                        + "to read and write these directories' files itself, or leave directories out");
            }
            return List.of();
        }
        if (items.isEmpty()) {
            throw pools.error(POOL_DIRECTORIES, "required with shared: true: the request directories (- path: ...) "
                    + "whose files this mover may write");
        }
        List<Path> paths = new java.util.ArrayList<>();
        for (ConfigNode item : items) {
            item.allow(List.of(POOL_PATH));
            Path p = item.path(POOL_PATH, null);
            if (p == null) {
                throw item.error(POOL_PATH, "required");
            }
            if (paths.contains(p)) {
                throw item.error(POOL_PATH, p + " is listed twice");
            }
            paths.add(p);
        }
        return List.copyOf(paths);
    }
}
