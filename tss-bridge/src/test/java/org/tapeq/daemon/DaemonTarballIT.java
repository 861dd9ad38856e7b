package org.tapeq.daemon;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.core.status.Status;
import ch.qos.logback.core.status.StatusUtil;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.jar.JarInputStream;
import java.util.jar.Manifest;
import java.util.stream.Collectors;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream;
import org.junit.jupiter.api.BeforeAll;
import org.tapeq.daemon.cli.TapeqCommand;
import picocli.CommandLine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * The daemon's tarball as a site unpacks it under /opt: the launcher, the libraries, the example configuration,
 * the systemd unit and the documentation. It reads target/tapeq-daemon-VERSION.tar.gz, which the package phase
 * built; the launcher is also run, with a stand-in for java that reports its arguments.
 */
class DaemonTarballIT {
    private static final String MAIN_CLASS = "org.tapeq.daemon.cli.TapeqCommand";
    private static final String DEFAULT_JAVA_OPTS = "-Xmx2g -XX:+UseParallelGC -XX:+ExitOnOutOfMemoryError";

    private static final Path TARBALL = Path.of(property("tapeq.daemon.tarball"));
    private static final String BASE = property("tapeq.daemon.base");
    private static final String VERSION = property("tapeq.daemon.version");
    private static final Path EXAMPLE_CONFIG = Path.of(property("tapeq.daemon.example-config"));

    /** An entry of the tarball; content is empty for directories. */
    private record Entry(int mode, boolean directory, byte[] content) {
        String text() {
            return new String(content, StandardCharsets.UTF_8);
        }
    }

    /** Entries by their path below the top directory, in tarball order. */
    private static final Map<String, Entry> ENTRIES = new LinkedHashMap<>();
    private static final List<String> OUTSIDE_BASE = new ArrayList<>();

    @BeforeAll
    static void readTarball() throws IOException {
        try (TarArchiveInputStream tar = new TarArchiveInputStream(new GzipCompressorInputStream(
                Files.newInputStream(TARBALL)))) {
            for (TarArchiveEntry e; (e = tar.getNextEntry()) != null; ) {
                String name = e.getName();
                if (!name.startsWith(BASE + "/")) {
                    OUTSIDE_BASE.add(name);
                    continue;
                }
                String path = name.substring(BASE.length() + 1);
                if (path.endsWith("/")) {
                    path = path.substring(0, path.length() - 1);
                }
                ENTRIES.put(path, new Entry(e.getMode() & 07777, e.isDirectory(), tar.readAllBytes()));
            }
        }
    }

    @Test
    void tarball_unpacked_isOneDirectoryNamedWithTheVersion() {
        assertEquals("tapeq-daemon-" + VERSION, BASE);
        assertTrue(OUTSIDE_BASE.isEmpty(), "entries outside " + BASE + "/: " + OUTSIDE_BASE);
        assertFalse(ENTRIES.isEmpty());
    }

    @Test
    void launcher_inTarball_isAnExecutablePosixShellScriptRunningTheMainClass() {
        Entry launcher = entry("bin/tapeq");
        assertEquals("755", Integer.toOctalString(launcher.mode()), "mode of bin/tapeq");
        String script = launcher.text();
        assertTrue(script.startsWith("#!/bin/sh\n"), "not a POSIX sh script");
        assertFalse(script.contains("\r"), "DOS line endings");
        assertTrue(script.contains(MAIN_CLASS));
    }

    @Test
    void lib_holdsTheDaemonAndItsRuntimeDependencies_withoutTestJars() {
        List<String> jars = libJars();
        for (String module : List.of("tapeq-daemon", "tapeq-scheduler", "tapeq-protocol")) {
            assertTrue(jars.contains(module + "-" + VERSION + ".jar"), module + " missing: " + jars);
        }
        for (String module : List.of("tapeq-core", "tapeq-format", "tapeq-catalog", "tapeq-tape-sim",
                "tapeq-tape-scsi")) {
            assertTrue(jars.contains(module + "-" + VERSION + ".jar"), module + " missing: " + jars);
        }
        // commons-compress comes only through tapeq-format (the on-tape format): it must stay a runtime jar.
        for (String library : List.of("picocli", "logback-classic", "logback-core", "slf4j-api", "sqlite-jdbc",
                "postgresql", "HikariCP", "commons-compress", "jackson-databind", "jackson-dataformat-yaml",
                "prometheus-metrics-core", "prometheus-metrics-exposition-textformats",
                "prometheus-metrics-instrumentation-jvm")) {
            assertTrue(jars.stream().anyMatch(j -> j.matches(library + "-[0-9].*\\.jar")),
                    library + " missing: " + jars);
        }
        for (String jar : jars) {
            assertTrue(jar.endsWith(".jar"), "not a jar in lib/: " + jar);
            assertEquals("644", Integer.toOctalString(ENTRIES.get("lib/" + jar).mode()), "mode of " + jar);
            assertFalse(jar.startsWith("junit-") || jar.startsWith("opentest4j-")
                    || jar.startsWith("apiguardian-") || jar.endsWith("-tests.jar"), "test jar in lib/: " + jar);
        }
        Map<String, String> byArtifact = new HashMap<>();
        for (String jar : jars) {
            String artifact = jar.replaceFirst("-[0-9][^/]*\\.jar$", "");
            String other = byArtifact.put(artifact, jar);
            assertTrue(other == null, "two versions of " + artifact + ": " + other + ", " + jar);
        }
    }

    @Test
    void lib_holdsNoToolNorTestToolNorChartLibrary() {
        // the tools add-on (tools/) brings these; the production package is the daemon only
        for (String jar : libJars()) {
            String artifact = jar.replaceFirst("-[0-9][^/]*\\.jar$", "");
            assertFalse(List.of("tapeq-simulator", "tapeq-charts", "tapeq-loadtest", "tapeq-tools",
                    "tapeq-pool-emulator", "tapeq-provider", "dcache-nearline-api", "xchart", "pdfbox",
                    "pdfbox-io", "fontbox", "graphics2d", "VectorGraphics2D", "animated-gif-lib").contains(artifact),
                    "not a daemon library, in lib/: " + jar);
        }
    }

    private static List<String> libJars() {
        return ENTRIES.keySet().stream()
                .filter(p -> p.startsWith("lib/") && !ENTRIES.get(p).directory())
                .map(p -> p.substring("lib/".length()))
                .collect(Collectors.toList());
    }

    @Test
    void daemonJar_manifest_carriesTheImplementationVersion() throws IOException {
        byte[] jar = entry("lib/tapeq-daemon-" + VERSION + ".jar").content();
        try (JarInputStream in = new JarInputStream(new ByteArrayInputStream(jar))) {
            Manifest manifest = in.getManifest();
            assertNotNull(manifest, "no manifest");
            assertEquals(VERSION, manifest.getMainAttributes().getValue("Implementation-Version"));
        }
    }

    @Test
    void etc_configuration_isTheDocumentedExample() throws IOException {
        Entry config = entry("etc/tapeq.yaml");
        assertArrayEquals(Files.readAllBytes(EXAMPLE_CONFIG), config.content(),
                "etc/tapeq.yaml differs from " + EXAMPLE_CONFIG);
        assertEquals("644", Integer.toOctalString(config.mode()), "mode of etc/tapeq.yaml");
    }

    @Test
    void etc_holdsTheAlertRulesAndTheGrafanaDashboard() throws IOException {
        for (String file : List.of("prometheus/tapeq-alerts.yml", "grafana/tapeq-dashboard.json")) {
            assertArrayEquals(Files.readAllBytes(Path.of("src/main/dist/etc", file)), entry("etc/" + file).content(),
                    "etc/" + file);
            assertEquals("644", Integer.toOctalString(entry("etc/" + file).mode()), "mode of etc/" + file);
        }
    }

    @Test
    void etc_logbackExample_configuresLogbackWithoutWarnings() throws Exception {
        LoggerContext context = new LoggerContext();
        JoranConfigurator configurator = new JoranConfigurator();
        configurator.setContext(context);
        configurator.doConfigure(new ByteArrayInputStream(entry("etc/logback.xml").content()));
        StatusUtil status = new StatusUtil(context);
        assertTrue(status.getHighestLevel(0) < Status.WARN,
                () -> "logback reports: " + context.getStatusManager().getCopyOfStatusList());
        assertEquals(Level.INFO, context.getLogger("org.tapeq").getLevel(), "level without -Dtapeq.log.level");
        context.stop();
    }

    @Test
    void systemdUnit_runsAsTapeqHardened_andIsNotRestartedOnConfigurationErrors() {
        Set<String> lines = entry("systemd/tapeq.service").text().lines()
                .map(String::strip)
                .filter(l -> !l.startsWith("#"))
                .collect(Collectors.toSet());
        for (String expected : List.of(
                "User=tapeq",
                "Group=tapeq",
                "ExecStart=/opt/tapeq/bin/tapeq daemon -c /etc/tapeq/tapeq.yaml",
                "ExecReload=/bin/kill -HUP $MAINPID",
                "Restart=on-failure",
                "RestartPreventExitStatus=78",
                "NoNewPrivileges=yes",
                "ProtectSystem=strict",
                "ReadWritePaths=/var/lib/tapeq",
                "StateDirectory=tapeq",
                "UMask=0027",
                "Environment=\"TAPEQ_JAVA_OPTS=" + DEFAULT_JAVA_OPTS + "\"")) {
            assertTrue(lines.contains(expected), "systemd/tapeq.service lacks " + expected);
        }
    }

    @Test
    void shareDoc_holdsTheInstallNotesAndTheOperationsGuide() {
        assertTrue(entry("share/doc/INSTALL.md").text().contains("operations.md"));
        assertTrue(entry("share/doc/operations.md").text().contains("Migrating from the ENDIT daemons"));
        for (String linked : List.of("protocol.md", "provider.md", "scheduler.md", "scsi-backend.md", "tape-format.md")) {
            entry("share/doc/" + linked);
        }
        // every relative link of the guide (documents, images) is packaged beside it
        java.util.regex.Matcher link = java.util.regex.Pattern.compile("\\]\\(([^)#:]+)(#[^)]*)?\\)")
                .matcher(entry("share/doc/operations.md").text());
        int links = 0;
        while (link.find()) {
            entry("share/doc/" + link.group(1));
            links++;
        }
        assertTrue(links >= 6, "relative links found: " + links);
    }

    @Test
    @EnabledOnOs({OS.LINUX, OS.MAC})
    void launcher_withDefaults_runsJavaFromJavaHomeWithArgumentsUnchangedAndReturnsItsStatus(
            @TempDir Path dir) throws Exception {
        Path home = unpackLauncher(dir);
        Path javaHome = fakeJava(dir, 7);
        Run run = run(dir, home.resolve("bin/tapeq"), javaHome, null, "drive", "down", "LTO9-1", "--reason",
                "two words", "*");
        assertEquals(7, run.status(), run.stderr());
        List<String> expected = new ArrayList<>(List.of(DEFAULT_JAVA_OPTS.split(" ")));
        expected.addAll(List.of("-cp", home.toRealPath() + "/lib/*", MAIN_CLASS,
                "drive", "down", "LTO9-1", "--reason", "two words", "*"));
        assertEquals(expected, run.arguments());
    }

    @Test
    @EnabledOnOs({OS.LINUX, OS.MAC})
    void launcher_withJavaOpts_replacesTheDefaultOptions(@TempDir Path dir) throws Exception {
        Path home = unpackLauncher(dir);
        Files.createFile(dir.resolve("-Dx=expanded")); // what -Dx=* would match if the shell expanded it
        Run run = run(dir, home.resolve("bin/tapeq"), fakeJava(dir, 0), "-Xmx64m  -Dtapeq.log.level=DEBUG -Dx=*",
                "status");
        assertEquals(0, run.status(), run.stderr());
        assertEquals(List.of("-Xmx64m", "-Dtapeq.log.level=DEBUG", "-Dx=*", "-cp", home.toRealPath() + "/lib/*",
                MAIN_CLASS, "status"), run.arguments(), "split at blanks, no file name expansion");
    }

    @Test
    @EnabledOnOs({OS.LINUX, OS.MAC})
    void launcher_calledThroughSymbolicLinks_findsTheRealInstallation(@TempDir Path dir) throws Exception {
        Path home = unpackLauncher(dir);
        Path current = Files.createSymbolicLink(dir.resolve("tapeq-current"), home.getFileName());
        Path bin = Files.createDirectories(dir.resolve("usr/bin"));
        Path link = Files.createSymbolicLink(bin.resolve("tapeq"), Path.of("../../tapeq-current/bin/tapeq"));
        Run run = run(dir, link, fakeJava(dir, 0), null, "status");
        assertEquals(0, run.status(), run.stderr());
        assertTrue(run.arguments().contains(home.toRealPath() + "/lib/*"),
                "not the real directory behind " + current + ": " + run.arguments());
    }

    @Test
    @EnabledOnOs({OS.LINUX, OS.MAC})
    void launcher_withJavaHomeWithoutJava_exitsWithTheConfigurationErrorStatus(@TempDir Path dir)
            throws Exception {
        Path home = unpackLauncher(dir);
        Run run = run(dir, home.resolve("bin/tapeq"), Files.createDirectories(dir.resolve("no-java")), null,
                "status");
        assertEquals(78, run.status());
        assertTrue(run.stderr().contains("JAVA_HOME"), run.stderr());
    }

    @Test
    void manPagesAndBashCompletion_nameEverySubcommand() {
        String completion = entry("share/bash-completion/completions/tapeq").text();
        List<String> commands = new ArrayList<>();
        collect(new CommandLine(new TapeqCommand()), "tapeq", commands);
        assertTrue(commands.size() > 10, "commands: " + commands);
        for (String command : commands) {
            String page = entry("share/man/man1/" + command.replace(' ', '-') + ".1").text();
            assertTrue(page.startsWith(".") || page.startsWith("'"), command + ": not a troff man page");
            String title = command.replace(" ", "-").replace("-", "\\-").toUpperCase(java.util.Locale.ROOT);
            assertTrue(page.contains(".TH \"" + title + "\""), command + ": no title line " + title);
            if (!command.equals("tapeq")) {
                assertTrue(completion.contains("\"${COMP_WORDS[0]}" + command.substring("tapeq".length()) + "\""),
                        "bash completion lacks " + command);
            }
        }
    }

    private static void collect(CommandLine cl, String name, List<String> out) {
        out.add(name);
        cl.getSubcommands().forEach((sub, child) -> {
            if (child.getCommandName().equals(sub)) { // aliases name the same command again
                collect(child, name + " " + sub, out);
            }
        });
    }

    private static Entry entry(String path) {
        Entry e = ENTRIES.get(path);
        assertNotNull(e, path + " missing from the tarball: " + ENTRIES.keySet());
        return e;
    }

    private static String property(String name) {
        String value = System.getProperty(name);
        if (value == null) {
            throw new IllegalStateException("system property " + name + " is not set (run through failsafe)");
        }
        return value;
    }

    /** bin/tapeq from the tarball, in an installation directory with an empty lib/. */
    private static Path unpackLauncher(Path dir) throws IOException {
        Path home = Files.createDirectories(dir.resolve(BASE));
        Files.createDirectories(home.resolve("lib"));
        Path launcher = Files.createDirectories(home.resolve("bin")).resolve("tapeq");
        Files.write(launcher, entry("bin/tapeq").content());
        Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwxr-xr-x"));
        return home;
    }

    /** A JAVA_HOME whose bin/java writes its arguments one per line and exits with {@code status}. */
    private static Path fakeJava(Path dir, int status) throws IOException {
        Path java = Files.createDirectories(dir.resolve("jdk/bin")).resolve("java");
        Files.writeString(java, "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done\nexit " + status + "\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        return dir.resolve("jdk");
    }

    private record Run(int status, List<String> arguments, String stderr) {
    }

    /** Runs the launcher with /bin/sh in {@code workDir}; {@code javaOpts} null leaves TAPEQ_JAVA_OPTS unset. */
    private static Run run(Path workDir, Path launcher, Path javaHome, String javaOpts, String... args)
            throws Exception {
        List<String> command = new ArrayList<>(List.of("/bin/sh", launcher.toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).directory(workDir.toFile());
        builder.environment().put("JAVA_HOME", javaHome.toString());
        builder.environment().remove("TAPEQ_JAVA_OPTS");
        if (javaOpts != null) {
            builder.environment().put("TAPEQ_JAVA_OPTS", javaOpts);
        }
        Process process = builder.start();
        process.getOutputStream().close();
        byte[] out = process.getInputStream().readAllBytes();
        byte[] err = process.getErrorStream().readAllBytes();
        int status = process.waitFor();
        return new Run(status, new String(out, StandardCharsets.UTF_8).lines().collect(Collectors.toList()),
                new String(err, StandardCharsets.UTF_8));
    }
}
