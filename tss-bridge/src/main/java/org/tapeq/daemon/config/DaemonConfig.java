package org.tapeq.daemon.config;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.tapeq.config.ConfigException;
import org.tapeq.config.ConfigNode;
import org.tapeq.mover.MoverSite;
import org.tapeq.protocol.RequestDirectory;
import org.tapeq.scheduler.engine.SchedulerConfig;
import org.tapeq.scheduler.tape.sim.DataMode;

/**
 * The daemon's configuration, read once at start from a YAML file (every key, its default and meaning:
 * docs/tapeq.example.yaml) and immutable afterwards.
 *
 * <p>Design notes. The YAML is read into a Jackson tree and checked key by key rather than bound to classes,
 * so that every error names the file and the key path ({@code tapeq.yaml: directories[1].path: ...}), unknown
 * keys (typos) are errors with the closest known key suggested, and a duplicate key is an error. Each section
 * is parsed by the record that holds it ({@link DirectoryConfig}, {@link CatalogConfig}, ...), which also names
 * its keys and writes it back for {@link #describe}; the scheduler's keys map onto {@link SchedulerConfig},
 * whose own defaults and checks apply. Problems that do not stop the daemon are returned by {@link #warnings}
 * for the caller to log.
 */
public final class DaemonConfig {

    static final String DIRECTORIES = "directories";
    static final String STATE = "state";
    static final String CATALOG = "catalog";
    static final String LIBRARY = "library";
    static final String INTAKE = "intake";
    static final String HTTP = "http";
    static final String BIND = "bind";
    private static final List<String> KEYS = List.of(DIRECTORIES, STATE, CATALOG, LIBRARY,
            SchedulerSection.FAMILIES, SchedulerSection.COLOCATION, SchedulerSection.GROUPS,
            SchedulerSection.SCHEDULER, ReclaimSection.RECLAIM, INTAKE, HTTP, MoversConfig.MOVERS);

    public static final Path DEFAULT_STATE = Path.of("/var/lib/tapeq");
    public static final String DEFAULT_HTTP_BIND = "127.0.0.1:9270";
    /** The value of {@code http.bind} that turns the HTTP endpoint off (unquoted, YAML reads it as false). */
    public static final String HTTP_OFF = "off";

    private static final Pattern HOST_PORT = Pattern.compile("(\\[[0-9A-Fa-f:.]+]|[^:\\[\\]]+):(\\d{1,5})");

    private final List<DirectoryConfig> directories;
    private final Path state;
    private final CatalogConfig catalog;
    private final LibraryConfig library;
    private final Optional<MoverSite> movers;
    private final SchedulerSection scheduler;
    private final IntakeConfig intake;
    private final InetSocketAddress httpBind;
    private final List<String> warnings = new ArrayList<>();
    /** The file's name as given, for the errors of {@link #checkPaths}. */
    private final String source;

    private DaemonConfig(ConfigNode root, String source) {
        this.source = source;
        root.allow(KEYS);
        List<ConfigNode> items = root.list(DIRECTORIES);
        if (items.isEmpty()) {
            throw root.error(DIRECTORIES, "required: list at least one request directory (- path: /absolute/path)");
        }
        directories = DirectoryConfig.parseAll(items);
        state = root.path(STATE, DEFAULT_STATE);
        catalog = CatalogConfig.parse(root.map(CATALOG), state, warnings);
        library = LibraryConfig.parse(root.map(LIBRARY), state);
        if (library.backend() == LibraryConfig.Backend.REMOTE) {
            throw root.map(LIBRARY).error(LibraryConfig.BACKEND, "remote is the backend of a mover (tapeq mover); a "
                    + "scheduler drives the drives of other hosts through its movers: section");
        }
        movers = MoversConfig.parse(root, catalog.site());
        scheduler = SchedulerSection.parse(root);
        intake = IntakeConfig.parse(root.map(INTAKE));
        if (!scheduler.config().checkLabels() && !sizeOnly(library)) {
            // Repack, verify and every mount skip the label read when it is off: on real bytes a wrong cartridge
            // would then surface as checksum failures (a good cartridge made SUSPECT) instead of a label mismatch.
            throw root.map(SchedulerSection.SCHEDULER).error(SchedulerSection.CHECK_LABELS,
                    "false is only for the simulated library with data: size-only (its tapes hold no label); with "
                            + (library.backend() == LibraryConfig.Backend.SCSI ? "the scsi backend"
                                    : "a simulated library holding real bytes")
                            + " every mount must read and check the cartridge label");
        }
        httpBind = httpBind(root.map(HTTP));
        for (int i = 0; i < directories.size(); i++) {
            String group = directories.get(i).group();
            if (group != null && !scheduler.config().groups().isEmpty()
                    && !scheduler.config().groups().containsKey(group)) {
                warnings.add(root.warning(DIRECTORIES + "[" + i + "]." + DirectoryConfig.GROUP, "\"" + group
                        + "\" is not listed under " + SchedulerSection.GROUPS + "; it gets share 1 and no drive cap"));
            }
        }
    }

    private static boolean sizeOnly(LibraryConfig library) {
        return library.backend() == LibraryConfig.Backend.SIMULATED
                && library.simulated().data() == DataMode.SIZE_ONLY;
    }

    /** Reads and validates {@code yamlFile}; errors name the file as given. */
    public static DaemonConfig load(Path yamlFile) {
        String yaml;
        try {
            yaml = Files.readString(yamlFile);
        } catch (IOException e) {
            throw new ConfigException(yamlFile + ": cannot read: " + e, e);
        }
        return parse(yaml, yamlFile.toString());
    }

    /** Parses and validates {@code yaml}; errors name {@code sourceName} as the file. */
    public static DaemonConfig parse(String yaml, String sourceName) {
        return new DaemonConfig(ConfigNode.parse(yaml, sourceName), sourceName);
    }

    /**
     * Checks the directories the configuration names on this machine, before the daemon starts anything: each
     * request directory must exist with its four subdirectories, and the state directory must exist or be
     * creatable (it is created here). An error names the file and the key, as the other configuration errors do,
     * so the daemon exits with 78 and systemd does not retry it. Not part of {@link #parse}: the admin commands
     * and the tests read configurations of other machines.
     */
    public void checkPaths() {
        for (int i = 0; i < directories.size(); i++) {
            Path p = directories.get(i).path();
            String key = DIRECTORIES + "[" + i + "]." + DirectoryConfig.PATH;
            if (!Files.exists(p)) {
                throw pathError(key, p + " does not exist; create it and its subdirectories in/ out/ request/ trash/, "
                        + "writable by the daemon's user (operations guide, \"Users, directories and permissions\")");
            }
            List<String> problems = RequestDirectory.at(p).problems();
            if (!problems.isEmpty()) {
                throw pathError(key, "request directory " + p + ": " + String.join("; ", problems));
            }
        }
        try {
            Files.createDirectories(state);
        } catch (IOException e) {
            throw pathError(STATE, "the state directory " + state + " does not exist and cannot be created ("
                    + reason(e) + "); create it owned by the daemon's user (install -d -m 0750 -o tapeq -g tapeq "
                    + state + "), or start the daemon through its systemd unit, which creates " + DEFAULT_STATE, e);
        }
        if (!Files.isDirectory(state) || !Files.isWritable(state)) {
            throw pathError(STATE, "the state directory " + state + " is not a directory the daemon can write");
        }
    }

    private ConfigException pathError(String key, String message) {
        return pathError(key, message, null);
    }

    private ConfigException pathError(String key, String message, Throwable cause) {
        return new ConfigException(source + ": " + key + ": " + message, cause);
    }

    /** What went wrong, in words: an AccessDeniedException's message is only the path. */
    private static String reason(IOException e) {
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof FileAlreadyExistsException f) {
            return f.getFile() + " is in the way and is not a directory";
        }
        if (e instanceof FileSystemException f && f.getReason() != null) {
            return f.getReason();
        }
        return e.toString();
    }

    private InetSocketAddress httpBind(ConfigNode http) {
        http.allow(List.of(BIND));
        String bind = http.isFalse(BIND) ? HTTP_OFF : http.string(BIND, DEFAULT_HTTP_BIND);
        if (bind.equals(HTTP_OFF)) {
            return null;
        }
        Matcher m = HOST_PORT.matcher(bind);
        if (!m.matches() || Integer.parseInt(m.group(2)) > 65535) {
            throw http.error(BIND, "\"" + bind + "\" is not host:port (e.g. 127.0.0.1:9270, [::1]:9270) or "
                    + HTTP_OFF);
        }
        String host = m.group(1).replaceAll("^\\[|]$", "");
        InetSocketAddress address = new InetSocketAddress(host, Integer.parseInt(m.group(2)));
        if (address.isUnresolved()) {
            throw http.error(BIND, "cannot resolve host \"" + host + "\"");
        }
        if (!address.getAddress().isLoopbackAddress()) {
            warnings.add(http.warning(BIND, bind + " is not a loopback address: status and metrics are served to "
                    + "other hosts"));
        }
        return address;
    }

    /** The request directories, in file order; at least one. */
    public List<DirectoryConfig> directories() {
        return directories;
    }

    /** The daemon's own directory: catalog (by default), lock file, control socket. */
    public Path state() {
        return state;
    }

    public CatalogConfig catalog() {
        return catalog;
    }

    public LibraryConfig library() {
        return library;
    }

    /** The site's data movers ({@code movers:}); empty: this host drives {@code library:} itself. */
    public Optional<MoverSite> movers() {
        return movers;
    }

    /** {@code scheduler:}, {@code families:}, {@code colocation:} and {@code groups:}, validated. */
    public SchedulerConfig schedulerConfig() {
        return scheduler.config();
    }

    public IntakeConfig intake() {
        return intake;
    }

    /** Where the HTTP endpoint (status, metrics) listens; empty if {@code http.bind: off}. */
    public Optional<InetSocketAddress> httpBind() {
        return Optional.ofNullable(httpBind);
    }

    /** Problems that do not stop the daemon, each naming the file and key, for the log at start. */
    public List<String> warnings() {
        return List.copyOf(warnings);
    }

    /** The effective configuration, every key with defaults filled in, as YAML that parses back to it. */
    /**
     * What a reload from {@code next} (already validated) changes: the changed keys the running daemon takes
     * over ({@code scheduler.}{@link SchedulerSection#RELOADABLE}) and those that need a restart, each named by
     * its path in the file ({@code http.bind}, {@code directories[1].path}). Compared on {@link #describe}, so a
     * value written another way ({@code 60s} for {@code 1m}) is no change.
     */
    public Changes changesTo(DaemonConfig next) {
        Map<String, String> before = flatten(describe());
        Map<String, String> after = flatten(next.describe());
        Set<String> keys = new TreeSet<>(before.keySet());
        keys.addAll(after.keySet());
        List<String> reloaded = new ArrayList<>();
        List<String> restart = new ArrayList<>();
        for (String k : keys) {
            if (!Objects.equals(before.get(k), after.get(k))) {
                boolean reloadable = k.startsWith(SchedulerSection.SCHEDULER + ".")
                        && SchedulerSection.RELOADABLE.contains(k.substring(SchedulerSection.SCHEDULER.length() + 1));
                (reloadable ? reloaded : restart).add(k);
            }
        }
        return new Changes(List.copyOf(reloaded), List.copyOf(restart));
    }

    /**
     * Changed keys of a reload, by their path in the file.
     *
     * @param reloaded taken over by the running daemon
     * @param restart  changed in the file but left as they were until the next start
     */
    public record Changes(List<String> reloaded, List<String> restart) {
    }

    /** {@link #describe}'s YAML as one entry per key: {@code section.key}, list items as {@code list[i].key}. */
    private static Map<String, String> flatten(String yaml) {
        Map<String, String> out = new LinkedHashMap<>();
        List<String> stack = new ArrayList<>(); // the path of the section open at each depth
        Map<String, Integer> items = new HashMap<>();
        for (String line : yaml.split("\n")) {
            int depth = (line.length() - line.stripLeading().length()) / 2;
            String rest = line.strip();
            if (rest.startsWith("- ")) { // a list item of the section one level up; its keys are one level deeper
                String list = stack.get(depth - 1);
                stack.subList(depth, stack.size()).clear();
                stack.add(list + "[" + (items.merge(list, 1, Integer::sum) - 1) + "]");
                rest = rest.substring(2);
                depth++;
            }
            stack.subList(Math.min(depth, stack.size()), stack.size()).clear();
            int colon = rest.indexOf(':');
            String key = (depth == 0 ? "" : stack.get(depth - 1) + ".") + rest.substring(0, colon);
            String value = rest.substring(colon + 1).strip();
            if (value.isEmpty()) {
                stack.add(key);
            } else {
                out.put(key, value);
            }
        }
        return out;
    }

    public String describe() {
        YamlText out = new YamlText().put(0, DIRECTORIES, null);
        directories.forEach(d -> d.describe(out));
        out.put(0, STATE, YamlText.quote(state));
        catalog.describe(out);
        library.describe(out);
        MoversConfig.describe(movers, out);
        scheduler.describe(out);
        intake.describe(out);
        return out.put(0, HTTP, null).put(1, BIND, httpBind == null ? HTTP_OFF : YamlText.quote(hostPort(httpBind)))
                .toString();
    }

    private static String hostPort(InetSocketAddress address) {
        String host = address.getHostString();
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + address.getPort();
    }
}
