package org.tapeq.daemon.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.tapeq.config.ConfigException;

/** Every class of error names the file and the key path. */
class ConfigErrorsTest {

    private static final String DIRECTORY = "directories:\n  - path: /srv/pool1\n";

    static Stream<Arguments> errors() {
        return Stream.of(
                // unknown keys, with the closest known key suggested
                Arguments.of(DIRECTORY + "scheduler:\n  quiteTime: 1m\n",
                        "scheduler.quiteTime: unknown key (did you mean quietTime?); known here: policy, "
                                + "minMountBytes"),
                Arguments.of("directory:\n  - path: /srv/pool1\n",
                        "directory: unknown key (did you mean directories?)"),
                Arguments.of(DIRECTORY + "intake:\n  Inotify: false\n",
                        "intake.Inotify: unknown key (did you mean inotify?)"),
                Arguments.of(DIRECTORY + "library:\n  simulated:\n    tapes: 3\n",
                        "library.simulated.tapes: unknown key; known here: dir, data"),
                // the site lease
                Arguments.of(DIRECTORY + "catalog:\n  site: \"tier 1\"\n",
                        "catalog.site: \"tier 1\" must be 1 to 64 letters, digits, '.', '_' or '-'"),
                Arguments.of(DIRECTORY + "catalog:\n  leaseTimeout: 2s\n",
                        "catalog.leaseTimeout: must be at least 6s, not 2s"),
                Arguments.of(DIRECTORY + "catalog:\n  standby: true\n",
                        "catalog.standby: needs a PostgreSQL catalog (catalog.url jdbc:postgresql:...): a SQLite "
                                + "catalog is a file of one host, a standby on another host cannot share it"),
                Arguments.of(DIRECTORY + "catalog:\n  url: jdbc:postgresql://db/tapeq\n  standby: sometimes\n",
                        "catalog.standby: must be true or false, not \"sometimes\""),
                // the label check off only where tapes hold no label
                Arguments.of(DIRECTORY + "library:\n  backend: scsi\n  scsi:\n    changer: /dev/sch0\n    drives:\n      - name: drive0\n        device: /dev/nst0\n"
                                + "scheduler:\n  checkLabels: false\n",
                        "scheduler.checkLabels: false is only for the simulated library with data: size-only (its "
                                + "tapes hold no label); with the scsi backend every mount must read and check the "
                                + "cartridge label"),
                Arguments.of(DIRECTORY + "scheduler:\n  checkLabels: false\n",
                        "scheduler.checkLabels: false is only for the simulated library with data: size-only (its "
                                + "tapes hold no label); with a simulated library holding real bytes every mount "
                                + "must read and check the cartridge label"),
                // wrong type
                Arguments.of(DIRECTORY + "scheduler: 3\n", "scheduler: must be a map"),
                Arguments.of(DIRECTORY + "reclaim:\n  threshold: 1.5\n",
                        "reclaim.threshold: must be below 1 (a live fraction), was 1.5"),
                Arguments.of(DIRECTORY + "reclaim:\n  threshold: 0\n", "reclaim.threshold: must be > 0.0, not 0.0"),
                Arguments.of(DIRECTORY + "reclaim:\n  maxRepacks: 0\n", "reclaim.maxRepacks: "),
                Arguments.of(DIRECTORY + "reclaim:\n  enable: true\n", "reclaim.enable: unknown key"),
                Arguments.of(DIRECTORY + "reclaim:\n  relabel: true\n", "reclaim.relabel: relabel relabels what the"
                        + " policy empties: it needs enabled: true"),
                Arguments.of(DIRECTORY + "reclaim:\n  enabled: true\n  relabel: yes please\n",
                        "reclaim.relabel: must be true or false, not \"yes please\""),
                Arguments.of(DIRECTORY + "scheduler:\n  migrationRepacks: -1\n", "scheduler.migrationRepacks: "),
                Arguments.of(DIRECTORY + "scheduler:\n  backgroundShare: 2\n",
                        "scheduler.backgroundShare: must be between 0 and 1"),
                Arguments.of("directories: /srv/pool1\n", "directories: must be a list"),
                Arguments.of("directories:\n  - /srv/pool1\n", "directories[0]: must be a map"),
                Arguments.of(DIRECTORY + "intake:\n  inotify: maybe\n",
                        "intake.inotify: must be true or false, not \"maybe\""),
                Arguments.of(DIRECTORY + "library:\n  simulated:\n    drives: four\n",
                        "library.simulated.drives: must be a whole number, not \"four\""),
                Arguments.of(DIRECTORY + "library:\n  simulated:\n    speed: fast\n",
                        "library.simulated.speed: must be a number"),
                Arguments.of(DIRECTORY + "groups:\n  - name: 7\n", "groups[0].name: must be a string, not a number"),
                Arguments.of(DIRECTORY + "scheduler:\n  aggregateBytes: [1]\n",
                        "scheduler.aggregateBytes: must be a string or number, not a list"),
                // value syntax and ranges
                Arguments.of(DIRECTORY + "scheduler:\n  quietTime: abc\n",
                        "scheduler.quietTime: \"abc\" is not a duration (examples: 500ms, 120s, 10m, 2h)"),
                Arguments.of("directories:\n  - path: /srv/pool1\n    stageBuffer: 10XB\n",
                        "directories[0].stageBuffer: \"10XB\" is not a size"),
                Arguments.of(DIRECTORY + "scheduler:\n  mergeGap: -1GB\n", "scheduler.mergeGap: \"-1GB\" is negative"),
                Arguments.of(DIRECTORY + "scheduler:\n  retryBackoff: -5\n",
                        "scheduler.retryBackoff: \"-5\" is negative"),
                Arguments.of(DIRECTORY + "scheduler:\n  maxAttempts: -1\n", "scheduler.maxAttempts: must be >= 0"),
                Arguments.of(DIRECTORY + "groups:\n  - name: atlas\n    share: 0\n", "groups[0].share: must be > 0"),
                Arguments.of(DIRECTORY + "library:\n  blockSize: 1000\n",
                        "library.blockSize: must be a multiple of 512 from 4KiB to 8MiB"),
                Arguments.of(DIRECTORY + "intake:\n  maxRequestBytes: 2MiB\n",
                        "intake.maxRequestBytes: must be from 1KiB to 1MiB"),
                Arguments.of(DIRECTORY + "intake:\n  rescanInterval: 500ms\n",
                        "intake.rescanInterval: must be at least 1s"),
                Arguments.of("directories:\n  - path: /srv/pool1\n    stageBufferReserve: 100%\n",
                        "directories[0].stageBufferReserve: \"100%\": a percentage must be from 0 to below 100"),
                Arguments.of(DIRECTORY + "library:\n  simulated:\n    barcodePrefix: tq\n",
                        "library.simulated.barcodePrefix: \"tq\" must be 1 to 4 capital letters or digits"),
                Arguments.of(DIRECTORY + "library:\n  simulated:\n    barcodePrefix: ABCD\n    cartridges: 101\n",
                        "library.simulated.cartridges: 101 do not fit"),
                Arguments.of(DIRECTORY + "http:\n  bind: localhost\n", "http.bind: \"localhost\" is not host:port"),
                // the builder's own checks, named by their YAML keys
                Arguments.of(DIRECTORY + "scheduler:\n  quietTime: 2h\n",
                        "scheduler.quietTime: quietMillis (7200000) must not exceed maxWaitMillis (3600000)"),
                Arguments.of(DIRECTORY + "scheduler:\n  maxWait: 0\n", "scheduler.maxWait: maxWaitMillis must be > 0"),
                Arguments.of(DIRECTORY + "scheduler:\n  flushBytes: 0\n",
                        "scheduler.flushBytes: flushBytes must be > 0"),
                Arguments.of(DIRECTORY + "scheduler:\n  flushHold: 0\n",
                        "scheduler.flushHold: flushHoldMillis must be > 0"),
                // names from a fixed set
                Arguments.of(DIRECTORY + "scheduler:\n  policy: lru\n",
                        "scheduler.policy: \"lru\" is not one of tapeq, fifo, endit, cta"),
                Arguments.of(DIRECTORY + "library:\n  simulated:\n    media: LTO7\n",
                        "library.simulated.media: \"LTO7\" is not one of LTO8, LTO9, TS1160"),
                Arguments.of(DIRECTORY + "library:\n  backend: tape\n",
                        "library.backend: \"tape\" is not one of simulated, scsi"),
                Arguments.of(DIRECTORY + "library:\n  simulated:\n    data: none\n",
                        "library.simulated.data: \"none\" is not one of bytes, size-only"),
                // the SCSI backend
                Arguments.of(DIRECTORY + "library:\n  backend: scsi\n",
                        "library.scsi.changer: required"),
                Arguments.of(DIRECTORY + "library:\n  backend: scsi\n  scsi:\n    changer: /dev/sg3\n",
                        "library.scsi.drives: required"),
                Arguments.of(DIRECTORY + "library:\n  scsi:\n    changer: /dev/sg3\n    drives:\n"
                                + "      - name: a\n        device: /dev/nst0\n      - name: b\n        device: /dev/nst0\n",
                        "library.scsi.drives[1].device: /dev/nst0 is used by another drive"),
                Arguments.of(DIRECTORY + "library:\n  scsi:\n    drives:\n      - name: a\n        device: /dev/nst0\n"
                                + "      - name: b\n        device: /dev/nst1\n        changerIndex: 0\n",
                        "library.scsi.drives[1].changerIndex: 0 is used by another drive"),
                Arguments.of(DIRECTORY + "library:\n  scsi:\n    drives:\n      - name: 'drive 1'\n        device: /dev/nst0\n",
                        "library.scsi.drives[0].name: \"drive 1\" must be 1-64 letters"),
                Arguments.of(DIRECTORY + "library:\n  scsi:\n    drives:\n      - device: /dev/nst0\n",
                        "library.scsi.drives[0].name: required"),
                Arguments.of(DIRECTORY + "library:\n  scsi:\n    drives:\n      - name: a\n        device: /dev/nst0\n"
                                + "        type: LTO-7\n",
                        "library.scsi.drives[0].type: \"LTO-7\" is not a drive type tapeq knows (LTO-8, LTO-9, TS1160)"),
                Arguments.of(DIRECTORY + "library:\n  scsi:\n    tapeTimeout: 0\n",
                        "library.scsi.tapeTimeout: must be longer than 0"),
                Arguments.of(DIRECTORY + "library:\n  scsi:\n    dataMinRate: 100\n",
                        "library.scsi.dataMinRate: 100 bytes per second must be between 1KiB and 1TiB"),
                Arguments.of(DIRECTORY + "library:\n  scsi:\n    prefix: ssh tapehost\n",
                        "library.scsi.prefix: unknown key (did you mean commandPrefix?); known here: changer, drives"),
                // regular expressions, with the list index
                Arguments.of(DIRECTORY + "families:\n  - storageClass: 'cms:.*'\n    family: cms\n"
                                + "  - storageClass: 'atlas:('\n    family: atlas\n",
                        "families[1].storageClass: \"atlas:(\" is not a valid regular expression: Unclosed group"),
                Arguments.of(DIRECTORY + "colocation:\n  - path: '^(/pnfs/[^/]+)/.*'\n    dataset: $2\n",
                        "colocation[0].dataset: \"$2\" refers to $2 but the path pattern has 1 group(s)"),
                Arguments.of(DIRECTORY + "families:\n  - storageClass: 'cms:.*'\n", "families[0].family: required"),
                // directories
                Arguments.of("state: /var/lib/tapeq\n", "directories: required"),
                Arguments.of("directories: []\n", "directories: required"),
                Arguments.of("directories:\n  - name: pool1\n", "directories[0].path: required"),
                Arguments.of("directories:\n  - path: srv/pool1\n",
                        "directories[0].path: must be an absolute path, not \"srv/pool1\""),
                Arguments.of(DIRECTORY + "  - path: /srv/other/../pool1\n",
                        "directories[1].path: \"/srv/pool1\" is also the path of directories[0]"),
                Arguments.of(DIRECTORY + "  - path: /srv\n", "directories[1].path: \"/srv\" and the path of "
                        + "directories[0] (\"/srv/pool1\") are nested"),
                Arguments.of(DIRECTORY + "  - path: /data/pool1\n",
                        "directories[1].name: \"pool1\" is also the name of directories[0] (by default"),
                Arguments.of("directories:\n  - path: /srv/pool1\n    name: 'pool 1'\n",
                        "directories[0].name: \"pool 1\" may contain only"),
                Arguments.of(DIRECTORY + "groups:\n  - name: atlas\n  - name: atlas\n",
                        "groups[1].name: \"atlas\" is listed twice"),
                // catalog: no password in the file
                Arguments.of(DIRECTORY + "catalog:\n  password: secret\n", "catalog.password: not allowed"),
                Arguments.of(DIRECTORY + "catalog:\n  url: jdbc:postgresql://db/tapeq?password=secret\n",
                        "catalog.url: must not contain a password"),
                Arguments.of(DIRECTORY + "catalog:\n  url: jdbc:mysql://db/tapeq\n",
                        "catalog.url: \"jdbc:mysql://db/tapeq\" must start with jdbc:sqlite: or jdbc:postgresql:"),
                Arguments.of(DIRECTORY + "state: var/lib/tapeq\n", "state: must be an absolute path"),
                // YAML itself
                Arguments.of(DIRECTORY + "scheduler:\n  quietTime: 1m\n  dwell: 2m\n  quietTime: 2m\n",
                        "scheduler.quietTime: duplicate key (line 6, column 12"),
                Arguments.of("directories:\n  - path: /srv/pool1\n    path: /srv/pool2\n",
                        "directories[0].path: duplicate key (line 3"),
                Arguments.of("", "the file is empty"),
                Arguments.of("# nothing but comments\n", "the file is empty"),
                Arguments.of("- a\n- b\n", "the file must be a map of sections"),
                Arguments.of(DIRECTORY + "---\nstate: /srv\n",
                        "line 4, column 1: a second YAML document starts here; the file must hold one"),
                Arguments.of("directories:\n  - path: /srv/pool1\n    stageBufferReserve: 5f%\n",
                        "directories[0].stageBufferReserve: \"5f%\" is not a percentage or a size"),
                Arguments.of(DIRECTORY + " scheduler:\n", "line 3, column 2: "),
                Arguments.of(DIRECTORY + "scheduler:\n  quietTime: [1m\n  dwell: 1m\n", "line 5, column "));
    }

    @ParameterizedTest
    @MethodSource("errors")
    void parse_invalid_errorNamesFileAndKey(String yaml, String message) {
        ConfigException e = assertThrows(ConfigException.class, () -> DaemonConfig.parse(yaml, "tapeq.yaml"));
        assertTrue(e.getMessage().startsWith("tapeq.yaml: " + message), e.getMessage());
    }

    @Test
    void parse_passwordRejected_passwordNotInMessage() {
        ConfigException e = assertThrows(ConfigException.class, () -> DaemonConfig.parse(
                DIRECTORY + "catalog:\n  url: jdbc:postgresql://db/tapeq?user=t&password=s3cret\n", "tapeq.yaml"));
        assertTrue(!e.getMessage().contains("s3cret"), e.getMessage());
    }

    @Test
    void load_invalidFile_errorNamesPath(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("tapeq.yaml");
        Files.writeString(file, DIRECTORY + "scheduler:\n  dwell: forever\n");
        ConfigException e = assertThrows(ConfigException.class, () -> DaemonConfig.load(file));
        assertEquals(file + ": scheduler.dwell: \"forever\" is not a duration (examples: 500ms, 120s, 10m, 2h)",
                e.getMessage());
    }

    @Test
    void load_missingFile_errorNamesPath(@TempDir Path dir) {
        Path file = dir.resolve("absent.yaml");
        ConfigException e = assertThrows(ConfigException.class, () -> DaemonConfig.load(file));
        assertTrue(e.getMessage().startsWith(file + ": cannot read"), e.getMessage());
    }
}
