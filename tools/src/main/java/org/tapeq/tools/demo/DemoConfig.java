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
                "library:",
                "  backend: simulated",
                "  simulated:",
                "    dir: " + root.resolve("library"),
                "    data: bytes",
                "    speed: " + speed,
                "    drives: " + drives,
                "    media: LTO9",
                "    cartridges: " + cartridges,
                "    barcodePrefix: DM",
                "    seed: " + seed,
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
                "  bind: off",
                "");
    }
}
