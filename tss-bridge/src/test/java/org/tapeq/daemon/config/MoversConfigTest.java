package org.tapeq.daemon.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.tapeq.config.ConfigException;
import org.tapeq.mover.MoverSite;

/** The daemon's movers: section and the mover's own file: validated once, errors naming the file and key. */
class MoversConfigTest {

    private static final String DIRS = "directories:\n  - path: /srv/endit\n";
    private static final String MOVERS = DIRS + """
            movers:
              probeInterval: 1s
              servers:
                - name: ts1
                  address: ts1.example.org:9280
                  drives: drive0, drive1
                - name: ts2
                  address: ts2.example.org:9280
                  drives: drive2
            """;

    @Test
    void noMoversSection_noMovers() {
        assertTrue(DaemonConfig.parse(DIRS, "tapeq.yaml").movers().isEmpty());
    }

    @Test
    void movers_parsed_changerDefaultsToTheFirst_describedAndReadBack() {
        DaemonConfig c = DaemonConfig.parse(MOVERS, "tapeq.yaml");
        MoverSite site = c.movers().orElseThrow();
        assertEquals("ts1", site.changer());
        assertEquals(List.of("drive0", "drive1"), site.movers().get(0).drives());
        assertEquals(9280, site.movers().get(1).port());
        assertEquals(1_000, site.probeMillis());
        assertEquals(c.describe(), DaemonConfig.parse(c.describe(), "described").describe());
    }

    @Test
    void aDriveOwnedByTwoMovers_refused() {
        ConfigException e = assertThrows(ConfigException.class, () -> DaemonConfig.parse(
                MOVERS.replace("drives: drive2", "drives: drive1"), "tapeq.yaml"));
        assertTrue(e.getMessage().contains("tapeq.yaml") && e.getMessage().contains("drive drive1 is also owned by "
                + "mover ts1"), e.getMessage());
    }

    @Test
    void anUnknownChanger_refused() {
        ConfigException e = assertThrows(ConfigException.class, () -> DaemonConfig.parse(
                MOVERS.replace("  probeInterval: 1s\n", "  changer: ts9\n"), "tapeq.yaml"));
        assertTrue(e.getMessage().contains("movers.changer"), e.getMessage());
    }

    @Test
    void robotByTheChanger_parsedAndReadBack_drivesByDefault_anotherValueRefused() {
        assertTrue(!DaemonConfig.parse(MOVERS, "tapeq.yaml").movers().orElseThrow().robotByChanger());
        DaemonConfig c = DaemonConfig.parse(MOVERS.replace("  probeInterval: 1s\n", "  robot: changer\n"),
                "tapeq.yaml");
        assertTrue(c.movers().orElseThrow().robotByChanger());
        assertTrue(DaemonConfig.parse(c.describe(), "described").movers().orElseThrow().robotByChanger());
        ConfigException e = assertThrows(ConfigException.class, () -> DaemonConfig.parse(
                MOVERS.replace("  probeInterval: 1s\n", "  robot: everyone\n"), "tapeq.yaml"));
        assertTrue(e.getMessage().contains("tapeq.yaml") && e.getMessage().contains("movers.robot")
                && e.getMessage().contains("\"everyone\" must be drives"), e.getMessage());
    }

    @Test
    void aMoverDrivingTheChanger_saysSo() {
        MoverConfig c = MoverConfig.parse("""
                mover:
                  name: ts1
                  site: gridka
                  listen: 127.0.0.1:9280
                  drives: drive0
                  changer: true
                """, "mover.yaml");
        assertTrue(c.changer());
        assertTrue(!MoverConfig.load(Path.of("../docs/mover.example.yaml")).changer());
    }

    @Test
    void moverExample_parses() {
        MoverConfig c = MoverConfig.load(Path.of("../docs/mover.example.yaml"));
        assertEquals("ts1", c.name());
        assertEquals(List.of("drive0", "drive1"), c.drives());
        assertEquals(9280, c.listen().getPort());
        assertEquals("default", c.identity().site());
        assertEquals("", c.identity().token());
    }

    @Test
    void moverWithoutItsSite_refused() {
        ConfigException e = assertThrows(ConfigException.class, () -> MoverConfig.parse("""
                mover:
                  name: ts1
                  listen: 127.0.0.1:9280
                  drives: drive0
                """, "mover.yaml"));
        assertTrue(e.getMessage().contains("mover.yaml") && e.getMessage().contains("site"), e.getMessage());
    }

    @Test
    void aTokenFileOpenToOthers_orNoPath_refusedNamingIt(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Path token = java.nio.file.Files.writeString(dir.resolve("mover.token"), "s3cret\n");
        java.nio.file.Files.setPosixFilePermissions(token,
                java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
        ConfigException e = assertThrows(ConfigException.class, () -> DaemonConfig.parse(MOVERS.replace(
                "  probeInterval: 1s\n", "  probeInterval: 1s\n  tokenFile: " + token + "\n"), "tapeq.yaml"));
        assertTrue(e.getMessage().contains(token.toString()) && e.getMessage().contains("rw-r--r--")
                && e.getMessage().contains("tokenFile"), e.getMessage());
        e = assertThrows(ConfigException.class, () -> DaemonConfig.parse(MOVERS.replace(
                "  probeInterval: 1s\n", "  probeInterval: 1s\n  tokenFile: \"a\\0b\"\n"), "tapeq.yaml"));
        assertTrue(e.getMessage().contains("tokenFile") && e.getMessage().contains("not a valid path"),
                e.getMessage());
    }

    private static Path ownerOnly(Path file) throws java.io.IOException {
        return java.nio.file.Files.setPosixFilePermissions(file,
                java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
    }

    @Test
    void anEmptyTokenFile_refusedNamingIt(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Path token = ownerOnly(java.nio.file.Files.writeString(dir.resolve("mover.token"), "\n"));
        ConfigException e = assertThrows(ConfigException.class, () -> MoverConfig.parse("""
                mover:
                  name: ts1
                  site: gridka
                  tokenFile: %s
                  listen: 127.0.0.1:9280
                  drives: drive0
                """.formatted(token), "mover.yaml"));
        assertTrue(e.getMessage().contains(token.toString()) && e.getMessage().contains("empty"), e.getMessage());
        java.nio.file.Files.writeString(token, "s3cret\n");
        MoverSite site = DaemonConfig.parse(MOVERS.replace("  probeInterval: 1s\n",
                "  probeInterval: 1s\n  tokenFile: " + token + "\n"), "tapeq.yaml").movers().orElseThrow();
        assertEquals("s3cret", site.identity().token());
    }

    @Test
    void moverOwningADriveItsLibraryLacks_refused() {
        ConfigException e = assertThrows(ConfigException.class, () -> MoverConfig.parse("""
                mover:
                  name: ts1
                  site: default
                  listen: 127.0.0.1:9280
                  drives: drive0, drive7
                library:
                  simulated:
                    drives: 2
                """, "mover.yaml"));
        assertTrue(e.getMessage().contains("mover.yaml") && e.getMessage().contains("drive drive7"), e.getMessage());
    }

    private static final String MOVER = """
            mover:
              name: ts1
              site: default
              listen: 127.0.0.1:9280
              drives: drive0
            """;

    @Test
    void sharedPools_readWithTheirDirectories_leftOutNone() {
        assertEquals(List.of(), MoverConfig.parse(MOVER, "mover.yaml").sharedPools());
        MoverConfig c = MoverConfig.parse(MOVER + """
                pools:
                  shared: true
                  directories:
                    - path: /pools/a/tape
                    - path: /pools/b/../b2/tape
                """, "mover.yaml");
        assertEquals(List.of(Path.of("/pools/a/tape"), Path.of("/pools/b2/tape")), c.sharedPools());
    }

    @Test
    void sharedPoolsWithoutDirectories_orDirectoriesNotShared_refusedNamingTheKey() {
        ConfigException none = assertThrows(ConfigException.class, () -> MoverConfig.parse(MOVER + """
                pools:
                  shared: true
                """, "mover.yaml"));
        assertTrue(none.getMessage().contains("mover.yaml") && none.getMessage().contains("pools.directories")
                && none.getMessage().contains("required"), none.getMessage());
        ConfigException notShared = assertThrows(ConfigException.class, () -> MoverConfig.parse(MOVER + """
                pools:
                  directories:
                    - path: /pools/a/tape
                """, "mover.yaml"));
        assertTrue(notShared.getMessage().contains("shared is not true"), notShared.getMessage());
        ConfigException relative = assertThrows(ConfigException.class, () -> MoverConfig.parse(MOVER + """
                pools:
                  shared: true
                  directories:
                    - path: pools/a
                """, "mover.yaml"));
        assertTrue(relative.getMessage().contains("absolute"), relative.getMessage());
    }
}
