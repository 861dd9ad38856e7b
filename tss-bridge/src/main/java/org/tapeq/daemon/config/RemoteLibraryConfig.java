package org.tapeq.daemon.config;

import java.util.List;
import java.util.regex.Matcher;

import org.tapeq.config.ConfigNode;
import org.tapeq.mover.MoverEndpoint;
import org.tapeq.mover.MoverSite;
import org.tapeq.mover.SiteIdentity;

/**
 * Where a mover's library is served when its backend is {@code remote} ({@code library.remote:}): the address of
 * the process that drives the robot and every drive ({@code tapeq sim-library}) and the name it answers with.
 *
 * @param name the serving process's {@code mover.name}, checked against its answer
 * @param host its host name or address
 * @param port its gRPC port
 */
public record RemoteLibraryConfig(String name, String host, int port) {

    static final String ADDRESS = "address";
    static final String NAME = "name";
    static final List<String> KEYS = List.of(ADDRESS, NAME);
    static final String DEFAULT_NAME = "library";

    static RemoteLibraryConfig parse(ConfigNode remote) {
        remote.allow(KEYS);
        String address = remote.requiredString(ADDRESS);
        Matcher m = MoversConfig.HOST_PORT.matcher(address);
        if (!m.matches() || Integer.parseInt(m.group(2)) < 1 || Integer.parseInt(m.group(2)) > 65535) {
            throw remote.error(ADDRESS, "\"" + address + "\" is not host:port (e.g. library.example.org:9290)");
        }
        String name = remote.string(NAME, DEFAULT_NAME);
        if (!MoversConfig.NAME_FORMAT.matcher(name).matches()) {
            throw remote.error(NAME, "\"" + name + "\" must be 1 to 64 letters, digits, '.', '_' or '-'");
        }
        return new RemoteLibraryConfig(name, m.group(1).replaceAll("^\\[|]$", ""), Integer.parseInt(m.group(2)));
    }

    /**
     * The serving process as the one server of a mover that owns {@code drives} of it, with the movers: section's
     * default deadlines and probes, and the mover's own site identity and stall timeout.
     */
    public MoverSite site(List<String> drives, SiteIdentity identity, long stallMillis) {
        return new MoverSite(List.of(new MoverEndpoint(name, host, port, drives)), name,
                MoversConfig.DEFAULT_COMMAND_TIMEOUT_MILLIS, MoversConfig.DEFAULT_PROBE_INTERVAL_MILLIS,
                MoversConfig.DEFAULT_PROBE_TIMEOUT_MILLIS, stallMillis, identity);
    }

    void describe(YamlText out) {
        out.put(1, LibraryConfig.REMOTE, null).put(2, NAME, YamlText.quote(name))
                .put(2, ADDRESS, YamlText.quote(host + ":" + port));
    }
}
