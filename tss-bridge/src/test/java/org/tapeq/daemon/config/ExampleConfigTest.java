package org.tapeq.daemon.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

/** docs/tapeq.example.yaml, the file admins copy, stays valid, complete and true about the defaults. */
class ExampleConfigTest {

    /** Relative to the module directory, Maven's working directory for tests. */
    private static final Path EXAMPLE = Path.of("../docs/tapeq.example.yaml");
    private static final YAMLMapper YAML = new YAMLMapper();

    @Test
    void example_parses_withoutWarnings() {
        assertEquals(List.of(), DaemonConfig.load(EXAMPLE).warnings());
    }

    @Test
    void example_namesEveryKey() throws IOException {
        Set<String> described = keys(YAML.readTree(DaemonConfig.load(EXAMPLE).describe()));
        described.removeAll(keys(YAML.readTree(EXAMPLE.toFile())));
        assertEquals(Set.of(), described, "keys missing from " + EXAMPLE);
    }

    @Test
    void example_showsTheDefaults() throws IOException {
        DaemonConfig example = DaemonConfig.load(EXAMPLE);
        StringBuilder directories = new StringBuilder("directories:\n");
        // Named as in the example: both request directories are .../endit, and names must differ.
        example.directories().forEach(d -> directories.append("  - path: ").append(d.path()).append('\n')
                .append("    name: ").append(d.name()).append('\n'));
        JsonNode defaults = YAML.readTree(DaemonConfig.parse(directories.toString(), "defaults").describe());
        JsonNode shown = YAML.readTree(example.describe());
        // the SCSI backend's devices have no defaults: the example shows an example
        ((ObjectNode) shown.at("/library/scsi")).remove(List.of("changer", "drives"));
        for (String section : new String[] {"state", "catalog", "library", "scheduler", "intake", "http"}) {
            assertEquals(defaults.get(section), shown.get(section), section);
        }
        for (String key : new String[] {"stageBuffer", "stageBufferReserve"}) {
            assertEquals(defaults.at("/directories/0/" + key), shown.at("/directories/0/" + key), key);
        }
        assertEquals(defaults.at("/directories/1"), shown.at("/directories/1"));
    }

    /** The key paths of a tree, list entries as {@code []}: {@code directories[].path}. */
    private static Set<String> keys(JsonNode tree) {
        Set<String> keys = new TreeSet<>();
        collect(tree, "", keys);
        assertTrue(!keys.isEmpty());
        return keys;
    }

    private static void collect(JsonNode node, String path, Set<String> keys) {
        if (node.isArray()) {
            node.forEach(item -> collect(item, path + "[]", keys));
        } else if (node.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> field = it.next();
                String key = path.isEmpty() ? field.getKey() : path + "." + field.getKey();
                keys.add(key);
                collect(field.getValue(), key, keys);
            }
        }
    }
}
