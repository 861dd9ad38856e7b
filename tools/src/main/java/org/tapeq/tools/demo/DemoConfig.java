package org.tapeq.tools.demo;

import java.nio.file.Path;

/** The daemon configuration the demo writes: a site's file, with tape time scaled and short waits. */
final class DemoConfig {

    private DemoConfig() {
    }

    static String yaml(Path root, Path endit, int drives, int cartridges, double speed, long seed) {
        return String.join("\n",
                "# written by tapeq demo",
                "directories:",
                "  - path: " + endit,
                "    name: demo",
                "state: " + root.resolve("state"),
                simulatedLibrary(root.resolve("library"), drives, cartridges, speed, seed),
                policy(speed));
    }

    /** The {@code library:} section of a simulated library holding real bytes in {@code dir}. */
    static String simulatedLibrary(Path dir, int drives, int cartridges, double speed, long seed) {
        return simulatedLibrary(dir, "bytes", drives, cartridges, speed, "DM", seed);
    }

    /** The {@code library:} section of a simulated LTO-9 library in {@code dir}; {@code data}: bytes or size-only. */
    static String simulatedLibrary(Path dir, String data, int drives, int cartridges, double speed,
                                   String barcodePrefix, long seed) {
        return String.join("\n",
                "library:",
                "  backend: simulated",
                "  simulated:",
                "    dir: " + dir,
                "    data: " + data,
                "    speed: " + speed,
                "    drives: " + drives,
                "    media: LTO9",
                "    cartridges: " + cartridges,
                "    barcodePrefix: " + barcodePrefix,
                "    seed: " + seed);
    }

    /** Families, groups, the scheduler's waits in tape time, the intake's rescan and no HTTP endpoint. */
    static String policy(double speed) {
        return policy(speed, "off");
    }

    /** As {@link #policy(double)}, with the HTTP endpoint on {@code httpBind}. */
    static String policy(double speed, String httpBind) {
        return String.join("\n",
                "families:",
                "  - storageClass: \"atlas:.*\"",
                "    family: atlas",
                "  - storageClass: \"cms:.*\"",
                "    family: cms",
                "groups:",
                "  - name: atlas",
                "    share: 1",
                "  - name: cms",
                "    share: 1",
                "scheduler:",
                "  # tape time (x" + speed + "): the defaults suit a site, these a few hundred files",
                "  aggregateBytes: 2GB",
                "  aggregateWait: 60s",
                "  quietTime: 30s",
                "  remountGuard: 2m",
                "  dwell: 30s",
                "  minMountFiles: 1000",
                "  verifyAfterWrite: true",
                "intake:",
                "  rescanInterval: 5s",
                "http:",
                "  bind: " + httpBind,
                "");
    }
}
