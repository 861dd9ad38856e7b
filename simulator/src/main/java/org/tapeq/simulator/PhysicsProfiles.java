package org.tapeq.simulator;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.tapeq.config.ConfigException;
import org.tapeq.config.ConfigNode;
import org.tapeq.scheduler.tape.sim.PhysicsProfile;

/**
 * The physics profiles of {@code tapeq simulate}: the documented family shipped as {@code physics.yaml} in this
 * package (the one {@code --physics-sweep} runs), or a profile file of the same form. Every key is a constant here
 * and checked in this one place; an error names the file, the key and the reason.
 */
public final class PhysicsProfiles {

    static final String PROFILES = "profiles";
    static final String NAME = "name";
    static final String DESCRIPTION = "description";
    static final String SETTLE = "settle";
    static final String HEAD_STEP = "headStep";
    static final String BAND_CHANGE = "bandChange";
    static final String REVERSAL = "reversal";
    static final String BACK_HITCH = "backHitch";
    static final String LANDING_ZONE = "landingZone";
    static final String REWIND_SETTLE = "rewindSettle";
    static final String FIXED_SCALE = "fixedScale";
    static final String LOCATE_SECONDS_PER_LENGTH = "locateSecondsPerLength";
    static final String REWIND_SECONDS_PER_LENGTH = "rewindSecondsPerLength";
    static final String WRAP_JITTER = "wrapJitter";
    static final String CAPACITY_OFFSET = "capacityOffset";
    static final List<String> KEYS = List.of(NAME, DESCRIPTION, SETTLE, HEAD_STEP, BAND_CHANGE, REVERSAL,
            BACK_HITCH, LANDING_ZONE, REWIND_SETTLE, FIXED_SCALE, LOCATE_SECONDS_PER_LENGTH,
            REWIND_SECONDS_PER_LENGTH, WRAP_JITTER, CAPACITY_OFFSET);

    static final String BUILT_IN = "physics.yaml";
    static final String YAML = ".yaml";

    private PhysicsProfiles() {
    }

    /** The documented family, in sweep order ({@code nominal} first). */
    public static List<PhysicsProfile> family() {
        try (InputStream in = PhysicsProfiles.class.getResourceAsStream(BUILT_IN)) {
            if (in == null) {
                throw new IllegalStateException(BUILT_IN + " is missing from the jar");
            }
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), BUILT_IN);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The profiles named by {@code --physics}: a built-in name, or a file {@code NAME.yaml} (all its profiles).
     * An unknown name is an error naming the choices.
     */
    public static List<PhysicsProfile> get(String nameOrFile) {
        if (nameOrFile.endsWith(YAML)) {
            Path file = Path.of(nameOrFile);
            try {
                return parse(Files.readString(file, StandardCharsets.UTF_8), file.toString());
            } catch (IOException e) {
                throw new ConfigException(file + ": cannot read the physics profile file: " + e.getMessage(), e);
            }
        }
        List<String> names = new ArrayList<>();
        for (PhysicsProfile p : family()) {
            if (p.name().equals(nameOrFile)) {
                return List.of(p);
            }
            names.add(p.name());
        }
        throw new IllegalArgumentException("unknown physics profile '" + nameOrFile + "'; known: "
                + String.join(", ", names) + " (or a profile file, NAME.yaml)");
    }

    /** The profiles of a YAML document ({@code profiles:} list); {@code source} names it in errors. */
    static List<PhysicsProfile> parse(String yaml, String source) {
        ConfigNode root = ConfigNode.parse(yaml, source);
        root.allow(List.of(PROFILES));
        List<ConfigNode> items = root.list(PROFILES);
        if (items.isEmpty()) {
            throw root.error(PROFILES, "must list at least one profile");
        }
        List<PhysicsProfile> out = new ArrayList<>();
        for (ConfigNode p : items) {
            p.allow(KEYS);
            PhysicsProfile n = PhysicsProfile.NOMINAL;
            String name = p.requiredString(NAME);
            if (out.stream().anyMatch(o -> o.name().equals(name))) {
                throw p.error(NAME, "profile '" + name + "' is defined twice");
            }
            try {
                out.add(new PhysicsProfile(name,
                        p.duration(SETTLE, n.settleMillis()), p.duration(HEAD_STEP, n.headStepMillis()),
                        p.duration(BAND_CHANGE, n.bandChangeMillis()), p.duration(REVERSAL, n.reversalMillis()),
                        p.duration(BACK_HITCH, n.backHitchMillis()), p.duration(LANDING_ZONE, n.landingZoneMillis()),
                        p.duration(REWIND_SETTLE, n.rewindSettleMillis()), p.number(FIXED_SCALE, n.fixedScale(), 0),
                        nonNegative(p, LOCATE_SECONDS_PER_LENGTH), nonNegative(p, REWIND_SECONDS_PER_LENGTH),
                        p.has(WRAP_JITTER) ? p.number(WRAP_JITTER, 0, -1e-300) : n.wrapJitter(),
                        p.has(CAPACITY_OFFSET) ? p.number(CAPACITY_OFFSET, 0, -0.5) : n.capacityOffset()));
            } catch (IllegalArgumentException e) {
                throw p.error(e.getMessage());
            }
        }
        return out;
    }

    private static double nonNegative(ConfigNode p, String key) {
        return p.has(key) ? p.number(key, 0, -1e-300) : 0;
    }
}
