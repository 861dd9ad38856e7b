package org.tapeq.tools.demo;

import java.nio.file.Path;
import java.util.List;

/**
 * The files of the three-host demo ({@code tapeq demo --hosts 3}): a scheduler daemon's (the same on the active
 * host and the standby's but for its state directory and HTTP address), a mover's ({@code library.backend: remote})
 * and the library process's ({@code tapeq sim-library}: the simulated library with every drive).
 */
final class HostsConfig {

    static final String SITE = "demo";
    /** The lease lapses this long after its holder's last renewal: the standby's takeover follows. */
    static final String LEASE_TIMEOUT = "10s";
    static final String LIBRARY = "library";

    /** One mover: its name, address and drives. */
    record Mover(String name, String host, int port, List<String> drives) {
        String address() {
            return host + ":" + port;
        }
    }

    private HostsConfig() {
    }

    static String daemon(Path state, List<Path> endits, String catalogUrl, double speed, List<Mover> movers,
                         String changer, String httpBind) {
        return daemon(state, endits, catalogUrl, speed, null, "3s", movers, changer,
                DemoConfig.policy(speed, httpBind));
    }

    /**
     * A scheduler daemon's file: {@code data} is the library's (size-only; null: the default), {@code probeTimeout}
     * how long a mover call may take (the movers' first answers, at the scheduler's start, take longest on a busy
     * machine), {@code policy} the sections after {@code movers:} (families, scheduler, intake, http).
     */
    static String daemon(Path state, List<Path> endits, String catalogUrl, double speed, String data,
                         String probeTimeout, List<Mover> movers, String changer, String policy) {
        StringBuilder y = new StringBuilder("# written by tapeq demo --hosts 3\n").append(directories(endits));
        y.append("state: ").append(state).append('\n')
                .append("catalog:\n  url: \"").append(catalogUrl).append("\"\n  site: ").append(SITE)
                .append("\n  leaseTimeout: ").append(LEASE_TIMEOUT).append("\n  standby: true\n")
                .append("library:\n  backend: simulated\n  simulated:\n")
                .append(data == null ? "" : "    data: " + data + "\n").append("    speed: ").append(speed)
                .append("\n    drives: ").append(movers.stream().mapToInt(m -> m.drives().size()).sum()).append('\n')
                .append("movers:\n  changer: ").append(changer)
                .append("\n  probeInterval: 1s\n  probeTimeout: ").append(probeTimeout)
                .append("\n  stallTimeout: 30s\n  servers:\n");
        for (Mover m : movers) {
            y.append("    - name: ").append(m.name()).append("\n      address: ").append(m.address())
                    .append("\n      drives: ").append(String.join(", ", m.drives())).append('\n');
        }
        return y + policy;
    }

    /** The {@code directories:} section: one request directory per pool, named pool1, pool2, ... */
    static String directories(List<Path> endits) {
        StringBuilder y = new StringBuilder("directories:\n");
        for (int i = 0; i < endits.size(); i++) {
            y.append("  - path: ").append(endits.get(i)).append("\n    name: pool").append(i + 1).append('\n');
        }
        return y.toString();
    }

    static String mover(Mover m, Path state, Mover library) {
        return moverSection(m) + "state: " + state + "\nlibrary:\n  backend: remote\n  remote:\n    name: "
                + library.name() + "\n    address: " + library.address() + "\n";
    }

    static String library(Mover library, Path state, int cartridges, double speed, long seed) {
        return library(library, state, DemoConfig.simulatedLibrary(state.resolve("tapes"), library.drives().size(),
                cartridges, speed, seed));
    }

    /** The library process's file with {@code librarySection} ({@link DemoConfig#simulatedLibrary}). */
    static String library(Mover library, Path state, String librarySection) {
        return moverSection(library) + "state: " + state + "\n" + librarySection + "\n";
    }

    private static String moverSection(Mover m) {
        return "# written by tapeq demo --hosts 3\nmover:\n  name: " + m.name() + "\n  site: " + SITE + "\n  listen: "
                + m.address() + "\n  drives: " + String.join(", ", m.drives()) + "\n  stallTimeout: 30s\n";
    }
}
