package org.tapeq.config;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.tapeq.fuzz.Fuzz;
import org.tapeq.fuzz.Mutations;

/**
 * Fuzzes the reading of the YAML configuration (docs/testing.md, "Fuzzing"), seeded with the documented example:
 * a mutated file is parsed and every key of the example is read as each kind of value; each step gives a value
 * or a {@link ConfigException} naming the file, never another exception.
 */
class ConfigFuzzTest {
    private static final String SOURCE = "tapeq.yaml";
    private static final String EXAMPLE = read(Path.of("../docs/tapeq.example.yaml"));
    /** Every key of the example, at any depth. */
    private static final List<String> KEYS = keys(EXAMPLE);
    /** A key no configuration has. */
    private static final String ABSENT = "no_such_key";

    @Test
    void configFile_mutated_readsOrIsRefusedNamingTheFile() {
        Fuzz.mutants("configuration file", FILES, input -> {
            ConfigNode root;
            try {
                root = ConfigNode.parse(input.text(), SOURCE);
            } catch (ConfigException e) {
                assertRefusal(e);
                return;
            }
            readAll(root, 0);
        });
    }

    /** The example without its comment lines, which the parser skips at a cost and mutations rarely make count. */
    private static final String EXAMPLE_WITHOUT_COMMENTS = EXAMPLE.replaceAll("(?m)^\\s*#.*\n", "");

    /**
     * The seeds: the whole example, each of its sections as a file of its own, and a small configuration. Most
     * inputs are a section (a few hundred bytes rather than 6 KB): parsing is most of the cost of an input, and an
     * edit in a section is read the same way as the same edit in the whole file; splices of two seeds put
     * sections together.
     */
    private static final Mutations FILES = Mutations.ofText(seeds(),
            List.of(": ", "\n  - ", "&a ", "*a", "!!binary ", "!!int ", "{", "[", "---\n", "...\n", "? ", "|\n", ">\n",
                    "'", "\"", "1TiB", "5 min", "-1", "0x1f", ".inf", "~", "null", "yes", "on", "1e999", "\t"),
            256 * 1024);

    private static List<String> seeds() {
        List<String> seeds = new ArrayList<>(List.of(EXAMPLE_WITHOUT_COMMENTS,
                "directories:\n  - path: /srv/endit\n    tape_families: [atlas]\nscheduler:\n  drives: 2\n"));
        for (String section : EXAMPLE_WITHOUT_COMMENTS.split("(?m)^(?=[a-z])")) {
            if (!section.isBlank()) {
                seeds.add(section);
            }
        }
        return seeds;
    }

    /**
     * Reads every key of the example that {@code node} holds as every kind of value, then its maps and (the first
     * four items of) its lists, two levels deep: the depth of the example. A key the node does not hold (or holds
     * as null) reads as the default whatever its name, so that path is read once per node, with {@link #ABSENT}.
     */
    private static void readAll(ConfigNode node, int depth) {
        readAs(node, ABSENT);
        for (String key : KEYS) {
            if (!node.has(key)) {
                continue;
            }
            readAs(node, key);
            if (depth < 2) {
                List<ConfigNode> children = new ArrayList<>();
                read(() -> children.add(node.map(key)));
                read(() -> children.addAll(node.list(key)));
                children.stream().limit(4).forEach(c -> readAll(c, depth + 1));
            }
        }
        read(() -> {
            node.allow(KEYS);
            return null;
        });
    }

    /** Reads {@code key} of {@code node} as each kind of value. */
    private static void readAs(ConfigNode node, String key) {
        read(() -> node.isFalse(key));
        read(() -> node.string(key, "d"));
        read(() -> node.path(key, Path.of("/d")));
        read(() -> node.size(key, 0));
        read(() -> node.duration(key, 0));
        read(() -> node.integer(key, 0, Long.MIN_VALUE, Long.MAX_VALUE));
        read(() -> node.number(key, 0, -1));
        read(() -> node.bool(key, false));
    }

    private interface Read {
        Object get();
    }

    private static void read(Read read) {
        try {
            read.get();
        } catch (ConfigException e) {
            assertRefusal(e);
        }
    }

    private static void assertRefusal(ConfigException e) {
        assertTrue(e.getMessage().startsWith(SOURCE + ": ") && e.getMessage().length() > SOURCE.length() + 2,
                e.getMessage());
    }

    private static List<String> keys(String yaml) {
        Set<String> keys = new LinkedHashSet<>();
        Matcher m = Pattern.compile("(?m)^[\\s#-]*([a-z_]+):").matcher(yaml);
        while (m.find()) {
            keys.add(m.group(1));
        }
        return List.copyOf(keys);
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
