package org.tapeq.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tools add-on (target/tapeq-tools-VERSION.tar.gz) unpacked over the daemon package
 * (tss-bridge/target/tapeq-daemon-VERSION.tar.gz) with a plain {@code tar -xzf ... -C INSTALLATION}, as a site
 * does: through the /opt/tapeq link of a tarball installation, or into the directory /opt/tapeq of the DEB and RPM.
 * bin/tapeq then runs demo, simulate and loadtest with this JVM; without the add-on it says where they come from.
 */
@EnabledOnOs({OS.LINUX, OS.MAC})
class ToolsAddOnIT {

    private static final Path TOOLS = Path.of(property("tapeq.tools.tarball"));
    private static final Path DAEMON = Path.of(property("tapeq.daemon.tarball"));
    private static final String BASE = property("tapeq.daemon.base");

    @Test
    void addOn_unpackedThroughTheLink_addsDemoSimulateAndLoadtest(@TempDir Path dir)
            throws Exception {
        Path opt = install(dir);
        Path link = Files.createSymbolicLink(opt.resolve("tapeq"), Path.of(BASE));
        Run without = tapeq(link, "loadtest", "adt.yaml");
        assertEquals(2, without.status, without.out);
        assertTrue(without.out.contains("tapeq loadtest comes with the tools add-on"), without.out);

        assertEquals(0, run(dir, "tar", "-xzf", TOOLS.toString(), "-C", link.toString()).status);
        assertToolsRun(link);
        assertTrue(Files.isRegularFile(link.resolve("share/loadtest/adt.yaml")), "scenarios missing");
    }

    @Test
    void addOn_unpackedIntoAnInstallationDirectory_addsNothingElseThere(@TempDir Path dir) throws Exception {
        // the packages' layout: /opt/tapeq is the installation itself, not a link
        Path home = Files.move(install(dir).resolve(BASE), dir.resolve("tapeq"));
        assertEquals(0, run(dir, "tar", "-xzf", TOOLS.toString(), "-C", home.toString()).status);
        try (Stream<Path> top = Files.list(home)) {
            assertEquals(List.of("bin", "etc", "lib", "share", "systemd"),
                    top.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList()), "top of " + home);
        }
        assertToolsRun(home);
    }

    @Test
    void addOn_repeatsNoJarOfTheDaemonPackage_andUnpackedLeavesOneVersionOfEachLibrary() throws IOException {
        Map<String, Integer> daemon = entries(DAEMON);
        Map<String, Integer> tools = entries(TOOLS);
        Set<String> toolJars = jars(tools, "lib/");
        assertFalse(toolJars.isEmpty());
        for (String jar : toolJars) {
            assertFalse(jars(daemon, BASE + "/lib/").contains(jar), "the add-on repeats the daemon's " + jar);
            assertEquals("644", Integer.toOctalString(tools.get("lib/" + jar)), "mode of " + jar);
        }
        for (String module : List.of("tapeq-tools", "tapeq-simulator", "tapeq-loadtest", "tapeq-charts",
                "tapeq-pool-emulator", "tapeq-provider")) {
            assertTrue(toolJars.stream().anyMatch(j -> j.startsWith(module + "-")), module + " missing: " + toolJars);
        }
        Map<String, String> byArtifact = new HashMap<>();
        Set<String> all = new TreeSet<>(jars(daemon, BASE + "/lib/"));
        all.addAll(toolJars);
        for (String jar : all) {
            String other = byArtifact.put(jar.replaceFirst("-[0-9][^/]*\\.jar$", ""), jar);
            assertTrue(other == null, "two versions once unpacked: " + other + ", " + jar);
        }
        for (String path : tools.keySet()) {
            assertTrue(path.startsWith("lib/") || path.startsWith("share/loadtest/"), "not in lib/ or share/loadtest/: " + path);
        }
    }

    private static void assertToolsRun(Path home) throws Exception {
        for (String tool : List.of("demo", "simulate", "loadtest")) {
            Run help = tapeq(home, tool, "--help");
            assertEquals(0, help.status, help.out);
            assertTrue(help.out.startsWith("Usage: tapeq " + tool), help.out);
        }
        Run list = tapeq(home, "simulate", "--list");
        assertEquals(0, list.status, list.out);
        assertTrue(list.out.contains("bulk-recall"), list.out);
    }

    /** The daemon package unpacked under dir/opt, as the operations guide says; returns opt. */
    private static Path install(Path dir) throws Exception {
        Path opt = Files.createDirectories(dir.resolve("opt"));
        assertEquals(0, run(dir, "tar", "-xzf", DAEMON.toString(), "-C", opt.toString()).status);
        return opt;
    }

    private record Run(int status, String out) {
    }

    private static Run tapeq(Path home, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(home.resolve("bin/tapeq").toString()));
        command.addAll(List.of(args));
        return run(home, command.toArray(new String[0]));
    }

    /** Runs a command with this JVM as JAVA_HOME; out holds stdout and stderr. */
    private static Run run(Path workDir, String... command) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true);
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        builder.environment().put("TAPEQ_JAVA_OPTS", "-Xmx256m");
        Process process = builder.start();
        process.getOutputStream().close();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return new Run(process.waitFor(), out);
    }

    /** Path to mode of each file entry of a tarball. */
    private static Map<String, Integer> entries(Path tarball) throws IOException {
        Map<String, Integer> entries = new HashMap<>();
        try (TarArchiveInputStream tar = new TarArchiveInputStream(new GzipCompressorInputStream(
                Files.newInputStream(tarball)))) {
            for (TarArchiveEntry e; (e = tar.getNextEntry()) != null; ) {
                if (!e.isDirectory()) {
                    entries.put(e.getName(), e.getMode() & 07777);
                }
            }
        }
        return entries;
    }

    private static Set<String> jars(Map<String, Integer> entries, String lib) {
        return entries.keySet().stream()
                .filter(p -> p.startsWith(lib))
                .map(p -> p.substring(lib.length()))
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private static String property(String name) {
        String value = System.getProperty(name);
        if (value == null) {
            throw new IllegalStateException("system property " + name + " is not set (run through failsafe)");
        }
        return value;
    }
}
