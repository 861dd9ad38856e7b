package org.tapeq.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.tapeq.protocol.RequestDirectory;

class ProviderConfigTest {
    @TempDir
    Path base;

    @BeforeEach
    void layout() throws Exception {
        RequestDirectory.create(base);
    }

    private Map<String, String> options(String... keyValues) {
        Map<String, String> map = new HashMap<>();
        map.put("directory", base.toString());
        for (int i = 0; i < keyValues.length; i += 2) {
            map.put(keyValues[i], keyValues[i + 1]);
        }
        return map;
    }

    @Test
    void parse_enditLineWithDefaults_acceptsIt() {
        ProviderConfig c = ProviderConfig.parse(options("threads", "16", "period", "110", "graceperiod", "1000",
                "watchtimeout", "300", "lateallocate", "true"));
        assertEquals(16, c.threads());
        assertEquals(110, c.period().toMillis());
        assertEquals(300, c.rescan().getSeconds());
        assertTrue(c.lateAllocate());
        ProviderConfig defaults = ProviderConfig.parse(options());
        assertEquals(ProviderConfig.DEFAULT_THREADS, defaults.threads());
        assertEquals(ProviderConfig.DEFAULT_RESCAN, defaults.rescan());
        assertEquals("parent", defaults.colocation().toString());
        assertEquals(0, defaults.priority());
    }

    @Test
    void parse_missingDirectory_namesTheKey() {
        Map<String, String> map = options();
        map.remove("directory");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ProviderConfig.parse(map));
        assertTrue(e.getMessage().startsWith("directory: required option missing"), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"in", "out", "request", "trash"})
    void parse_missingSubdirectory_namesIt(String sub) throws Exception {
        Files.delete(base.resolve(sub));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ProviderConfig.parse(options()));
        assertEquals("directory: missing subdirectory " + base.resolve(sub), e.getMessage());
    }

    @Test
    void parse_subdirectoryIsSymlink_refused() throws Exception {
        Files.delete(base.resolve("in"));
        Files.createSymbolicLink(base.resolve("in"), Files.createTempDirectory("elsewhere"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ProviderConfig.parse(options()));
        assertTrue(e.getMessage().contains("is a symbolic link"), e.getMessage());
    }

    @Test
    void parse_relativeOrAbsentDirectory_refused() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ProviderConfig.parse(
                Map.of("directory", "relative/dir"))).getMessage().contains("must be an absolute path"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ProviderConfig.parse(
                Map.of("directory", base.resolve("nope").toString()))).getMessage().contains("is not a directory"));
    }

    @ParameterizedTest(name = "[{index}] -{0}={1}")
    @CsvSource(delimiter = '|', value = {
        "threads|many|threads: not an integer: 'many'",
        "threads|0|threads: must be between 1 and 256, was 0",
        "period|5|period: must be between 10 and 3600000, was 5",
        "graceperiod|-1|graceperiod: must be between 0 and 3600000, was -1",
        "watchtimeout|x|watchtimeout: not an integer: 'x'",
        "rescan|0|rescan: must be between 1 and 86400, was 0",
        "lateallocate|yes|lateallocate: must be true or false, was 'yes'",
        "orphantimeout|-5|orphantimeout: must be between 0 and 2592000, was -5",
        "priority|99999|priority: must be between -1000 and 1000, was 99999",
        "activity|' '|activity: must be 1 to 64 characters, was ' '",
        "colocation|dataset|colocation: must be 'parent', 'none' or 'storage-info:<key>', was 'dataset'",
        "graceperod|1000|unknown option graceperod; valid options are",
    })
    void parse_badValue_namesTheKey(String key, String value, String message) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ProviderConfig.parse(options(key, value)));
        assertTrue(e.getMessage().startsWith(message), e.getMessage());
    }

    @Test
    void parse_rescanAndWatchtimeoutDisagree_refused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ProviderConfig.parse(options("rescan", "10", "watchtimeout", "300")));
        assertTrue(e.getMessage().contains("watchtimeout and rescan"), e.getMessage());
    }

    @Test
    void colocation_rules_giveTheExpectedHint() {
        ColocationRule parent = ColocationRule.parse("colocation", "parent");
        assertEquals("/pnfs/atlas/ds1", parent.hint("/pnfs/atlas/ds1/f", null));
        assertEquals(null, parent.hint(null, null));
        ColocationRule none = ColocationRule.parse("colocation", "none");
        assertEquals(null, none.hint("/pnfs/atlas/ds1/f", null));
        var info = new org.tapeq.poolemulator.EmulatedStorageInfo("osm", "atlas:raw");
        info.setKey("group", "raw-2024");
        assertEquals("raw-2024", ColocationRule.parse("colocation", "storage-info:group").hint("/x/y", info));
    }

    @Test
    void configure_newDirectoryWhileRequestsInFlight_refusedNamingKey(@TempDir Path other) throws Exception {
        try (Fixture fx = Fixture.start(base.resolve("pool"))) {
            fx.pool.setActivationMode(org.tapeq.poolemulator.PoolEmulator.ActivationMode.HOLD);
            fx.pool.stage(java.util.List.of(fx.newStage(new byte[1], "/a/b")));
            RequestDirectory.create(other);
            Map<String, String> moved = fx.options(Map.of("directory", other.toString()));
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> fx.storage.configure(moved));
            assertTrue(e.getMessage().startsWith("directory: cannot change"), e.getMessage());
            fx.storage.configure(fx.options(Map.of("threads", "8"))); // tunables change while busy
            assertFalse(fx.storage.inFlight() == 0);
        }
    }
}
