package org.tapeq.daemon.config;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.tapeq.config.ConfigNode;
import org.tapeq.config.Units;
import org.tapeq.mover.MoverEndpoint;
import org.tapeq.mover.MoverServer;
import org.tapeq.mover.MoverSite;
import org.tapeq.mover.SiteIdentity;

/**
 * The data movers of a site ({@code movers:}): each names its address and the drives it owns; the scheduler then
 * drives the library through them instead of opening {@code library:} itself. Left out: today's single host, no
 * gRPC at all. Validated here, once: every drive belongs to exactly one mover, names and addresses are unique,
 * and the changer is one of the movers.
 */
public final class MoversConfig {

    static final String MOVERS = "movers";
    static final String SERVERS = "servers";
    static final String CHANGER = "changer";
    static final String COMMAND_TIMEOUT = "commandTimeout";
    static final String PROBE_INTERVAL = "probeInterval";
    static final String PROBE_TIMEOUT = "probeTimeout";
    static final String STALL_TIMEOUT = "stallTimeout";
    static final String TOKEN_FILE = "tokenFile";
    /**
     * Who moves cartridges: {@link #ROBOT_DRIVES} (each drive's mover, through its library) or {@link
     * #ROBOT_CHANGER} (the changer's mover; the drives' movers only load and unload).
     */
    static final String ROBOT = "robot";
    static final String ROBOT_DRIVES = "drives";
    static final String ROBOT_CHANGER = "changer";
    static final List<String> KEYS = List.of(SERVERS, CHANGER, COMMAND_TIMEOUT, PROBE_INTERVAL, PROBE_TIMEOUT,
            STALL_TIMEOUT, TOKEN_FILE, ROBOT);
    static final String NAME = "name";
    static final String ADDRESS = "address";
    static final String DRIVES = "drives";
    static final List<String> SERVER_KEYS = List.of(NAME, ADDRESS, DRIVES);

    /** A mount with a first calibration (up to 2 h on LTO-9) or a long locate and transfer must fit. */
    static final long DEFAULT_COMMAND_TIMEOUT_MILLIS = 3 * 3_600_000L;
    static final long DEFAULT_PROBE_INTERVAL_MILLIS = 2_000;
    static final long DEFAULT_PROBE_TIMEOUT_MILLIS = 10_000;

    static final Pattern NAME_FORMAT = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
    static final Pattern HOST_PORT = Pattern.compile("(\\[[0-9A-Fa-f:.]+]|[^:\\[\\]]+):(\\d{1,5})");

    private MoversConfig() {
    }

    /** The movers of site {@code site} ({@code catalog.site}), or empty when the section is left out. */
    static Optional<MoverSite> parse(ConfigNode root, String site) {
        if (!root.has(MOVERS)) {
            return Optional.empty();
        }
        ConfigNode movers = root.map(MOVERS);
        movers.allow(KEYS);
        List<ConfigNode> servers = movers.list(SERVERS);
        if (servers.isEmpty()) {
            throw movers.error(SERVERS, "required: list each mover (- name: ts1, address: host:port, drives: ...)");
        }
        List<MoverEndpoint> endpoints = new ArrayList<>();
        Map<String, String> ownerOf = new HashMap<>();
        Set<String> names = new HashSet<>();
        Set<String> addresses = new HashSet<>();
        for (ConfigNode s : servers) {
            s.allow(SERVER_KEYS);
            String name = s.requiredString(NAME);
            if (!NAME_FORMAT.matcher(name).matches()) {
                throw s.error(NAME, "\"" + name + "\" must be 1 to 64 letters, digits, '.', '_' or '-'");
            }
            if (!names.add(name)) {
                throw s.error(NAME, "\"" + name + "\" names two movers");
            }
            String address = s.requiredString(ADDRESS);
            Matcher m = HOST_PORT.matcher(address);
            if (!m.matches() || Integer.parseInt(m.group(2)) < 1 || Integer.parseInt(m.group(2)) > 65535) {
                throw s.error(ADDRESS, "\"" + address + "\" is not host:port (e.g. ts1.example.org:9280)");
            }
            if (!addresses.add(address)) {
                throw s.error(ADDRESS, address + " is the address of two movers");
            }
            List<String> drives = drives(s, DRIVES);
            for (String d : drives) {
                String other = ownerOf.putIfAbsent(d, name);
                if (other != null) {
                    throw s.error(DRIVES, "drive " + d + " is also owned by mover " + other
                            + ": each drive belongs to exactly one mover");
                }
            }
            endpoints.add(new MoverEndpoint(name, m.group(1).replaceAll("^\\[|]$", ""),
                    Integer.parseInt(m.group(2)), drives));
        }
        String changer = movers.string(CHANGER, endpoints.get(0).name());
        if (!names.contains(changer)) {
            throw movers.error(CHANGER, "\"" + changer + "\" is not one of the movers " + names);
        }
        long command = positive(movers, COMMAND_TIMEOUT, DEFAULT_COMMAND_TIMEOUT_MILLIS);
        long interval = positive(movers, PROBE_INTERVAL, DEFAULT_PROBE_INTERVAL_MILLIS);
        long timeout = positive(movers, PROBE_TIMEOUT, DEFAULT_PROBE_TIMEOUT_MILLIS);
        long stall = positive(movers, STALL_TIMEOUT, MoverServer.DEFAULT_STALL_MILLIS);
        SiteIdentity identity = new SiteIdentity(site, token(movers, TOKEN_FILE));
        String robot = movers.string(ROBOT, ROBOT_DRIVES);
        if (!robot.equals(ROBOT_DRIVES) && !robot.equals(ROBOT_CHANGER)) {
            throw movers.error(ROBOT, "\"" + robot + "\" must be " + ROBOT_DRIVES + " (each drive's mover moves its"
                    + " cartridges through its library) or " + ROBOT_CHANGER + " (the changer's mover makes every"
                    + " robot move, the drives' movers only load and unload)");
        }
        return Optional.of(new MoverSite(endpoints, changer, command, interval, timeout, stall, identity,
                robot.equals(ROBOT_CHANGER)));
    }

    /** The token in the file {@code key} names, or empty when the key is left out; a bad file fails, named. */
    static String token(ConfigNode node, String key) {
        if (!node.has(key)) {
            return "";
        }
        String path = node.requiredString(key);
        try {
            return SiteIdentity.readToken(java.nio.file.Path.of(path));
        } catch (java.nio.file.InvalidPathException e) {
            throw node.error(key, "'" + path + "' is not a valid path: " + e.getMessage());
        } catch (java.io.IOException e) {
            throw node.error(key, e.getMessage());
        }
    }

    /** A comma-separated list of drive names, at least one, none twice. */
    static List<String> drives(ConfigNode node, String key) {
        List<String> drives = Arrays.stream(node.requiredString(key).split(",")).map(String::strip).toList();
        if (drives.stream().anyMatch(d -> !NAME_FORMAT.matcher(d).matches())) {
            throw node.error(key, "\"" + node.requiredString(key) + "\" must be drive names separated by commas");
        }
        if (new HashSet<>(drives).size() != drives.size()) {
            throw node.error(key, "names a drive twice");
        }
        return drives;
    }

    private static long positive(ConfigNode node, String key, long defaultMillis) {
        long v = node.duration(key, defaultMillis);
        if (v <= 0) {
            throw node.error(key, "must be positive, not " + Units.formatDuration(v));
        }
        return v;
    }

    static void describe(Optional<MoverSite> site, YamlText out) {
        if (site.isEmpty()) {
            return;
        }
        MoverSite s = site.get();
        out.put(0, MOVERS, null).put(1, CHANGER, YamlText.quote(s.changer()))
                .put(1, ROBOT, s.robotByChanger() ? ROBOT_CHANGER : ROBOT_DRIVES)
                .put(1, COMMAND_TIMEOUT, Units.formatDuration(s.commandMillis()))
                .put(1, PROBE_INTERVAL, Units.formatDuration(s.probeMillis()))
                .put(1, PROBE_TIMEOUT, Units.formatDuration(s.probeTimeoutMillis()))
                .put(1, STALL_TIMEOUT, Units.formatDuration(s.stallMillis())).put(1, SERVERS, null);
        for (MoverEndpoint e : s.movers()) {
            out.item(2, NAME, YamlText.quote(e.name()))
                    .put(3, ADDRESS, YamlText.quote(e.host() + ":" + e.port()))
                    .put(3, DRIVES, YamlText.quote(String.join(", ", e.drives())));
        }
    }
}
