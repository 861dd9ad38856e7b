package org.tapeq.loadtest.run;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.tapeq.config.ConfigNode;
import org.tapeq.config.Units;
import org.tapeq.daemon.rehearsal.SizeOnlyTapes;
import org.tapeq.scheduler.tape.sim.DataMode;
import org.tapeq.workload.scenario.Activity;
import org.tapeq.workload.scenario.Experiment;
import org.tapeq.workload.scenario.LibrarySettings;
import org.tapeq.workload.scenario.Scenario;

/**
 * The daemon configuration the harness writes for a scenario's simulated library: a site's file with the
 * scheduler's defaults (they are in library time, which the simulated library scales like everything else), one
 * family and one fair-share group per experiment, and a stage buffer fit for size-only files of many GB.
 */
final class DaemonYaml {

    private DaemonYaml() {
    }

    static String of(Scenario scenario, Path endit, Path state) {
        LibrarySettings lib = scenario.library();
        boolean sizeOnly = lib.data() == DataMode.SIZE_ONLY;
        List<String> lines = new ArrayList<>(List.of(
                "# written by tapeq loadtest for " + scenario.source(),
                "directories:",
                "  - path: " + endit,
                "    name: loadtest",
                // size-only staged files are sparse: the buffer counts their length, the disk holds none of it
                "    stageBuffer: " + (sizeOnly ? "100TB" : "20GB"),
                "state: " + state,
                "library:",
                "  backend: simulated",
                "  simulated:",
                "    dir: " + state.resolve(StartedDaemon.LIBRARY),
                "    data: " + ConfigNode.yamlName(lib.data()),
                "    speed: " + Units.plainNumber(lib.speed()),
                "    drives: " + lib.drives(),
                "    media: " + lib.media().name().replace("-", ""),
                "    cartridges: " + lib.cartridges(),
                "    barcodePrefix: " + SizeOnlyTapes.BARCODE_PREFIX,
                "    seed: " + SizeOnlyTapes.SEED));
        if (!scenario.has(Activity.BURST)) {
            lines.add("families:");
            for (Experiment e : scenario.experiments()) {
                lines.add("  - storageClass: \"" + e.name() + ":.*\"");
                lines.add("    family: " + e.name());
            }
            lines.add("groups:");
            for (Experiment e : scenario.experiments()) {
                lines.add("  - name: " + e.name());
                lines.add("    share: " + Units.plainNumber(e.share()));
            }
        }
        lines.add("scheduler:");
        lines.add("  checkLabels: " + !sizeOnly);
        lines.add("http:");
        lines.add("  bind: off");
        lines.add("");
        return String.join("\n", lines);
    }
}
