package org.tapeq.simulator;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import org.tapeq.scheduler.model.MediaType;
import org.tapeq.workload.Workload;
import org.tapeq.workload.scenario.LibrarySettings;
import org.tapeq.workload.scenario.Scenario;
import org.tapeq.workload.scenario.ScenarioFile;

/**
 * The scenarios of {@code tapeq simulate}: the built-in ones, shipped as YAML files in this package's
 * {@code scenarios/} resources (the same format as {@code tapeq loadtest}'s, docs/loadtest.md), or any scenario file.
 * All built-in ones use LTO-9 cartridges, 10 drives and a library with two robot arms (docs/simulator.md).
 */
public final class Scenarios {

    /** The built-in scenarios, in the order {@code tapeq simulate} runs them. */
    static final List<String> BUILT_IN = List.of("bulk-recall", "bulk-recall-scattered", "carousel", "dt-write",
            "dt-write-100mb", "mixed", "trickle", "small-files", "many-datasets", "recall-beside-repack",
            "recall-stage-buffer", "recall-drive-failures");
    static final String YAML = ".yaml";

    private Scenarios() {
    }

    /** A scenario, ready to build a workload for any seed and scale. */
    public record Sim(Scenario scenario) {

        public String name() {
            return scenario.name();
        }

        public String description() {
            return scenario.description();
        }

        /**
         * The workload for a seed. {@code scale} multiplies the number of files, cartridges and requested files and
         * the duration of writes; 1 is the full size.
         */
        public Workload build(long seed, double scale) {
            checkScale(scale);
            return ScenarioWorkload.build(scenario, seed, scale);
        }

        /** The same scenario on cartridges of another media type (its capacity, rate and geometry). */
        public Sim withMedia(MediaType media) {
            LibrarySettings l = scenario.library();
            Scenario s = scenario;
            return new Sim(new Scenario(s.source(), s.name(), s.type(), s.seed(), new LibrarySettings(l.drives(),
                    l.cartridges(), media, l.speed(), l.data(), l.robotArms()), s.experiments(), s.targets(),
                    s.timeoutMillis(), s.description(), s.scaleFloor(), s.options()));
        }
    }

    public static List<String> names() {
        return BUILT_IN;
    }

    /**
     * A built-in scenario by name, or a scenario file if {@code nameOrFile} ends in {@code .yaml}; an unknown name
     * is an error naming the choices, a file that cannot be used one naming the file and the key.
     */
    public static Sim get(String nameOrFile) {
        if (nameOrFile.endsWith(YAML)) {
            return new Sim(ScenarioFile.loadForSimulation(Path.of(nameOrFile)));
        }
        if (!BUILT_IN.contains(nameOrFile)) {
            throw new IllegalArgumentException("unknown scenario '" + nameOrFile + "'; known: "
                    + String.join(", ", BUILT_IN) + " (or a scenario file, NAME.yaml)");
        }
        String resource = "scenarios/" + nameOrFile + YAML;
        try (InputStream in = Scenarios.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("built-in scenario " + resource + " is missing from the jar");
            }
            return new Sim(ScenarioFile.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8),
                    nameOrFile + YAML, null, ScenarioFile.Tool.SIMULATE));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code --scale} must lie in (0, 10]. */
    static void checkScale(double scale) {
        if (!(scale > 0) || scale > 10) {
            throw new IllegalArgumentException("scale must be in (0, 10]: " + scale);
        }
    }
}
