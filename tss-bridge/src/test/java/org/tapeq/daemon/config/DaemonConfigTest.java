package org.tapeq.daemon.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.tapeq.daemon.config.DirectoryConfig.Reserve;
import org.tapeq.daemon.config.LibraryConfig.Backend;
import org.tapeq.scheduler.tape.scsi.ScsiSettings;
import org.tapeq.scheduler.engine.SchedulerConfig;
import org.tapeq.scheduler.engine.SchedulerConfig.GroupShare;
import org.tapeq.scheduler.model.DriveType;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.tape.sim.DataMode;

class DaemonConfigTest {

    private static final String MINIMAL = "directories:\n  - path: /srv/pool1\n";

    private static final String FULL = """
            directories:
              - path: /srv/tape/pool1/
                name: p1
                group: atlas
                stageBuffer: 1.5TB
                stageBufferReserve: 2.5%
              - path: /srv/tape/pool2
                stageBufferReserve: 10 GB
            state: /srv/tapeq
            catalog:
              url: jdbc:postgresql://db.example.org:5432/tapeq
              user: tapeq
              passwordFile: /etc/tapeq/catalog.password
            library:
              backend: scsi
              blockSize: 1MiB
              simulated:
                dir: /srv/sim
                data: size-only
                speed: 100
                drives: 2
                media: lto-8
                cartridges: 99
                barcodePrefix: ABCD
                seed: -7
              scsi:
                changer: /dev/sg3
                drives:
                  - name: lto-a
                    device: /dev/nst1
                  - name: lto-b
                    device: /dev/nst0
                    changerIndex: 3
                    type: lto9
                commandPrefix: ssh -o BatchMode=yes tapehost
                robotTimeout: 5m
                tapeTimeout: 20m
                dataStall: 2m
                dataMinRate: 50MB
            families:
              - storageClass: "atlas:.*"
                family: atlas
              - storageClass: "cms:(raw|reco)"
                family: cms-data
            colocation:
              - path: "^(/pnfs/[^/]+/atlas/[^/]+/[^/]+)/.*"
                dataset: "$1"
            groups:
              - name: atlas
                share: 2.0
                maxDrives: 3
              - name: cms
                share: 0.5
            scheduler:
              policy: fifo
              minMountBytes: 1 TB
              minMountFiles: 500
              quietTime: 5m
              maxWait: 2h
              remountGuard: 0
              dwell: 90s
              idleUnmount: 1d
              mergeGap: 256MiB
              aggregateBytes: 20GB
              aggregateFiles: 2000
              aggregateWait: 300
              maxAttempts: 5
              retryBackoff: 30s
              driveErrorLimit: 4
              robotErrorLimit: 2
              fullMargin: 5GB
              flushFiles: 50
              flushBytes: 20GB
              flushHold: 2m
              maxReadDrives: 2
              maxWriteDrives: 1
              verifyPerWeek: 20
              verifySample: 8
              migrationRepacks: 3
              checkLabels: true
              verifyAfterWrite: true
            intake:
              rescanInterval: 10m
              inotify: false
              maxRequestBytes: 1MiB
            http:
              bind: 0.0.0.0:9999
            """;

    private static DaemonConfig parse(String yaml) {
        return DaemonConfig.parse(yaml, "tapeq.yaml");
    }

    @Test
    void parse_onlyDirectories_everyDefault() {
        DaemonConfig c = parse(MINIMAL);
        assertEquals(List.of(new DirectoryConfig(Path.of("/srv/pool1"), "pool1", null, 100L << 30,
                new Reserve(5, 0))), c.directories());
        assertEquals(Path.of("/var/lib/tapeq"), c.state());
        assertEquals(new CatalogConfig("jdbc:sqlite:/var/lib/tapeq/catalog.db", null, null), c.catalog());
        assertEquals(new LibraryConfig(Backend.SIMULATED, 256 << 10, new SimulatedConfig(
                Path.of("/var/lib/tapeq/simlib"), DataMode.BYTES, 1.0, 4, MediaType.LTO9, 20, "TQ", 1),
                new ScsiConfig(null, List.of(), List.of(), 600_000, 1_800_000, 600_000, 1 << 20)), c.library());
        assertEquals(new IntakeConfig(60_000, true, 64 << 10), c.intake());
        assertEquals(new InetSocketAddress("127.0.0.1", 9270), c.httpBind().orElseThrow());
        assertEquals(SchedulerConfig.defaults().toString(), c.schedulerConfig().toString());
        assertEquals(List.of(), c.warnings());
    }

    @Test
    void parse_nullValues_sameAsLeftOut() {
        DaemonConfig c = parse(MINIMAL + "    name:\nstate:\ncatalog:\nscheduler:\n  quietTime:\nhttp:\n");
        assertEquals(parse(MINIMAL).describe(), c.describe());
    }

    @Test
    void parse_otherState_derivedDefaultsFollow() {
        DaemonConfig c = parse(MINIMAL + "state: /srv/tapeq\n");
        assertEquals("jdbc:sqlite:/srv/tapeq/catalog.db", c.catalog().url());
        assertEquals(Path.of("/srv/tapeq/simlib"), c.library().simulated().dir());
    }

    @Test
    void parse_everyKeySet_valuesCarried() {
        DaemonConfig c = parse(FULL);
        assertEquals(List.of(
                new DirectoryConfig(Path.of("/srv/tape/pool1"), "p1", "atlas", 1_500_000_000_000L, new Reserve(2.5, 0)),
                new DirectoryConfig(Path.of("/srv/tape/pool2"), "pool2", null, 100L << 30,
                        new Reserve(0, 10_000_000_000L))), c.directories());
        assertEquals(Path.of("/srv/tapeq"), c.state());
        assertEquals(new CatalogConfig("jdbc:postgresql://db.example.org:5432/tapeq", "tapeq",
                Path.of("/etc/tapeq/catalog.password")), c.catalog());
        assertFalse(c.catalog().isSqlite());
        assertEquals(new LibraryConfig(Backend.SCSI, 1 << 20, new SimulatedConfig(Path.of("/srv/sim"),
                DataMode.SIZE_ONLY, 100, 2, MediaType.LTO8, 99, "ABCD", -7),
                new ScsiConfig("/dev/sg3", List.of(new ScsiSettings.Drive("lto-a", "/dev/nst1", 0),
                        new ScsiSettings.Drive("lto-b", "/dev/nst0", 3, DriveType.LTO9)), List.of("ssh", "-o", "BatchMode=yes",
                        "tapehost"), 300_000, 1_200_000, 120_000, 50_000_000)), c.library());
        assertEquals(1 << 20, c.library().scsi().settings(c.library().blockSizeBytes()).blockSize());
        assertEquals(new IntakeConfig(600_000, false, 1 << 20), c.intake());
        assertEquals(9999, c.httpBind().orElseThrow().getPort());
        assertTrue(c.httpBind().orElseThrow().getAddress().isAnyLocalAddress());
    }

    @Test
    void schedulerConfig_everyKeySet_valuesCarried() {
        SchedulerConfig s = parse(FULL).schedulerConfig();
        assertEquals("fifo", s.policy());
        assertEquals(1_000_000_000_000L, s.minMountBytes());
        assertEquals(500, s.minMountFiles());
        assertEquals(300_000, s.quietMillis());
        assertEquals(7_200_000, s.maxWaitMillis());
        assertEquals(0, s.remountGuardMillis());
        assertEquals(90_000, s.dwellMillis());
        assertEquals(86_400_000, s.idleUnmountMillis());
        assertEquals(256L << 20, s.mergeGapBytes());
        assertEquals(20_000_000_000L, s.aggregateBytes());
        assertEquals(2000, s.aggregateFiles());
        assertEquals(300_000, s.aggregateWaitMillis());
        assertEquals(5, s.maxAttempts());
        assertEquals(30_000, s.retryBackoffMillis());
        assertEquals(4, s.driveErrorLimit());
        assertEquals(2, s.robotErrorLimit());
        assertEquals(5_000_000_000L, s.fullMarginBytes());
        assertEquals(50, s.flushFiles());
        assertEquals(20_000_000_000L, s.flushBytes());
        assertEquals(120_000, s.flushHoldMillis());
        assertEquals(2, s.maxReadDrives());
        assertEquals(1, s.maxWriteDrives());
        assertEquals(20, s.verifyPerWeek());
        assertEquals(8, s.verifySample());
        assertEquals(3, s.migrationRepacks());
        assertTrue(s.checkLabels());
        assertTrue(s.verifyAfterWrite());
        assertEquals(new GroupShare(2.0, 3), s.group("atlas"));
        assertEquals(new GroupShare(0.5, 0), s.group("cms"));
        assertEquals(GroupShare.DEFAULT, s.group("lhcb"));
        assertEquals("atlas", s.familyOf("atlas:raw"));
        assertEquals("cms-data", s.familyOf("cms:reco"));
        assertEquals("cms:user", s.familyOf("cms:user"));
        assertEquals("/pnfs/example.org/atlas/data18/raw", s.datasetOf(null, "/pnfs/example.org/atlas/data18/raw/f1"));
        assertEquals("/pnfs/example.org/cms/run1", s.datasetOf(null, "/pnfs/example.org/cms/run1/f1"));
    }

    @Test
    void directory_reserve_percentOrBytes() {
        List<DirectoryConfig> d = parse(FULL).directories();
        assertEquals(25_000_000, d.get(0).reserveBytes(1_000_000_000));
        assertEquals(10_000_000_000L, d.get(1).reserveBytes(1_000_000_000));
        assertEquals(50, parse(MINIMAL).directories().get(0).reserveBytes(1000));
    }

    @Test
    void directory_group_configuredElseFromStorageClass() {
        List<DirectoryConfig> d = parse(FULL).directories();
        assertEquals("atlas", d.get(0).groupOf("cms:raw"));
        assertEquals("cms", d.get(1).groupOf("cms:raw"));
        assertEquals("plain", d.get(1).groupOf("plain"));
    }

    @Test
    void httpBind_offOrIpv6() {
        DaemonConfig off = parse(MINIMAL + "http:\n  bind: off\n");
        assertTrue(off.httpBind().isEmpty());
        assertTrue(off.describe().endsWith("\nhttp:\n  bind: off\n"));
        assertTrue(parse(off.describe()).httpBind().isEmpty());
        assertTrue(parse(MINIMAL + "http:\n  bind: 'off'\n").httpBind().isEmpty());
        DaemonConfig v6 = parse(MINIMAL + "http:\n  bind: '[::1]:9270'\n");
        assertTrue(v6.httpBind().orElseThrow().getAddress().isLoopbackAddress());
        assertEquals(List.of(), v6.warnings());
    }

    @Test
    void warnings_nameFileAndKey() {
        assertEquals(List.of("tapeq.yaml: catalog.passwordFile: ignored: SQLite has no users",
                "tapeq.yaml: http.bind: 0.0.0.0:9270 is not a loopback address: status and metrics are served to "
                        + "other hosts",
                "tapeq.yaml: directories[1].group: \"lhcb\" is not listed under groups; it gets share 1 and no "
                        + "drive cap"),
                parse("""
                        directories:
                          - path: /srv/pool1
                            group: atlas
                          - path: /srv/pool2
                            group: lhcb
                        catalog:
                          passwordFile: /etc/tapeq/pw
                        groups:
                          - name: atlas
                        http:
                          bind: 0.0.0.0:9270
                        """).warnings());
    }

    @Test
    void describe_everyKeySet_parsesBackToSameConfiguration() {
        String described = parse(FULL).describe();
        assertEquals(described, parse(described).describe());
        assertTrue(described.contains("\n  quietTime: 5m\n"), described);
        assertTrue(described.contains("\n        type: \"LTO-9\"\n"), described);
        assertTrue(described.contains("\n    stageBufferReserve: 2.5%\n"), described);
        assertTrue(described.contains("\n  passwordFile: \"/etc/tapeq/catalog.password\"\n"), described);
    }

    @Test
    void describe_defaults_everyKeyWithItsDefault() {
        String described = parse(MINIMAL).describe();
        assertEquals(described, parse(described).describe());
        assertTrue(described.startsWith("directories:\n  - path: \"/srv/pool1\"\n    name: \"pool1\"\n"), described);
        assertTrue(described.contains("\nfamilies: []\ncolocation: []\ngroups: []\nscheduler:\n  policy: \"tapeq\"\n"
                + "  minMountBytes: 650GB\n"), described);
        assertTrue(described.endsWith("\nhttp:\n  bind: \"127.0.0.1:9270\"\n"), described);
    }
}
