package org.tapeq.packages;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.tapeq.packages.SystemdContainer.Run;

/**
 * The packages of target/: the daemon's DEB installed on this machine with dpkg, the daemon started from it the
 * way the unit's ExecStart does (as the user tapeq) and asked /ready, then purged; the same DEB installed in a
 * container booted with systemd ({@link SystemdContainer}), where the unit is started, reloaded and stopped with
 * systemctl; the provider's DEB installed and purged; the RPMs read with rpm -qp and checked with rpmlint. The DEB
 * tests need root and dpkg and a machine without tapeq installed, the container also systemd-nspawn; the RPM test
 * needs rpm. Otherwise they are skipped, saying why.
 */
@EnabledOnOs(OS.LINUX)
class PackagesIT {

    private static final Path DIR = Path.of(property("tapeq.packages.dir"));
    private static final String PLUGINS = property("tapeq.packages.dcache-plugins");
    private static final Path RPMLINTRC = Path.of(property("tapeq.packages.rpmlintrc"));
    private static final Path TARBALL = Path.of(property("tapeq.packages.daemon-tarball"));

    @Test
    void daemonDeb_installedStartedAndPurged_servesAndLeavesTheMachineClean() throws Exception {
        assumeDpkgAsRoot("tapeq");
        assumeTrue(!Files.exists(Path.of("/var/lib/tapeq")), "skipped: /var/lib/tapeq exists on this machine");
        boolean userBefore = run("getent", "passwd", "tapeq").status() == 0;
        boolean groupBefore = run("getent", "group", "tapeq").status() == 0;
        Path work = Files.createTempDirectory(Path.of("/tmp"), "tapeq-deb-");
        Process daemon = null;
        try {
            Run install = run("dpkg", "-i", only("tapeq_", ".deb").toString());
            assertEquals(0, install.status(), install.out());

            assertEquals(0, run("getent", "passwd", "tapeq").status(), "user tapeq");
            assertEquals("root:tapeq 640", owner("/etc/tapeq/tapeq.yaml"));
            assertEquals("root:tapeq 750", owner("/etc/tapeq"));
            assertEquals("tapeq:tapeq 750", owner("/var/lib/tapeq"));
            assertEquals("root:root 755", owner("/opt/tapeq/bin/tapeq"));
            assertTrue(run("dpkg-query", "-W", "-f=${Conffiles}", "tapeq").out().contains("/etc/tapeq/tapeq.yaml"),
                    "tapeq.yaml is a conffile");
            assertTrue(Files.isRegularFile(Path.of("/usr/lib/systemd/system/tapeq.service")), "unit");
            assertTrue(Files.isRegularFile(Path.of("/usr/lib/sysusers.d/tapeq.conf")), "sysusers.d");
            assertDocsComplete(Path.of("/usr/share/doc/tapeq"));
            Run version = run("tapeq", "--version");
            assertEquals(0, version.status(), "tapeq on the PATH: " + version.out());
            if (run("sh", "-c", "command -v systemd-analyze").status() == 0) {
                Run verify = run("systemd-analyze", "verify", "/usr/lib/systemd/system/tapeq.service");
                assertEquals(0, verify.status(), verify.out());
            } else {
                System.out.println("PackagesIT: no systemd-analyze, the unit is not verified");
            }

            // The unit's ExecStart, as the unit's user, with the packaged state directory, one request
            // directory of its own and the simulated library.
            Path requests = Files.createDirectories(work.resolve("endit"));
            for (String sub : List.of("in", "out", "request", "trash")) {
                Files.createDirectories(requests.resolve(sub));
            }
            int port;
            try (ServerSocket free = new ServerSocket(0)) {
                port = free.getLocalPort();
            }
            Path config = work.resolve("tapeq.yaml");
            Files.writeString(config, String.join("\n",
                    "directories:",
                    "  - path: " + requests,
                    "state: /var/lib/tapeq",
                    "library:",
                    "  backend: simulated",
                    "  simulated:",
                    "    drives: 1",
                    "    cartridges: 2",
                    "    speed: 100",
                    "http:",
                    "  bind: 127.0.0.1:" + port,
                    ""));
            Files.setPosixFilePermissions(work, PosixFilePermissions.fromString("rwxr-xr-x"));
            Files.setPosixFilePermissions(config, PosixFilePermissions.fromString("rw-r--r--"));
            assertEquals(0, run("chown", "-R", "tapeq:tapeq", requests.toString()).status());
            ProcessBuilder start = new ProcessBuilder("runuser", "-u", "tapeq", "--",
                    "/opt/tapeq/bin/tapeq", "daemon", "-c", config.toString())
                    .redirectErrorStream(true).redirectOutput(work.resolve("daemon.log").toFile());
            start.environment().put("TAPEQ_JAVA_OPTS", "-Xmx256m");
            daemon = start.start();
            String ready = awaitReady(daemon, port, work.resolve("daemon.log"));
            assertTrue(ready.startsWith("ready"), ready);
        } finally {
            if (daemon != null) {
                daemon.destroy();
                if (!daemon.waitFor(60, TimeUnit.SECONDS)) {
                    daemon.destroyForcibly().waitFor();
                }
            }
            Run purge = run("dpkg", "--purge", "tapeq");
            Run rm = run("rm", "-rf", "/var/lib/tapeq", work.toString());
            Run userdel = userBefore ? null : run("userdel", "tapeq");
            // userdel may have removed the user's group already (USERGROUPS_ENAB): judged by getent below
            Run groupdel = groupBefore || run("getent", "group", "tapeq").status() != 0 ? null
                    : run("groupdel", "tapeq");
            assertEquals(0, purge.status(), purge.out());
            assertEquals(0, rm.status(), rm.out());
            assertEquals(userBefore, run("getent", "passwd", "tapeq").status() == 0,
                    "user tapeq as before the test" + (userdel == null ? "" : ": userdel said " + userdel.out()));
            assertEquals(groupBefore, run("getent", "group", "tapeq").status() == 0,
                    "group tapeq as before the test" + (groupdel == null ? "" : ": groupdel said " + groupdel.out()));
        }
        for (String gone : List.of("/opt/tapeq", "/usr/bin/tapeq", "/etc/tapeq", "/usr/lib/systemd/system/tapeq.service",
                "/usr/share/doc/tapeq")) {
            assertFalse(Files.exists(Path.of(gone)), gone + " left after the purge");
        }
    }

    /**
     * The unit as systemd runs it, with all its hardening: {@code systemctl start} until /ready answers, the daemon
     * running as user tapeq; {@code systemctl reload} (SIGHUP through ExecReload) takes over a changed scheduling key
     * in the same process; {@code systemctl stop} ends it cleanly (SIGTERM, status 143 counted as success).
     */
    @Test
    void daemonDeb_inAContainerBootedWithSystemd_systemctlStartsReloadsAndStopsIt() throws Exception {
        assumeDpkgAsRoot("tapeq");
        Optional<String> unavailable = SystemdContainer.unavailable();
        assumeTrue(unavailable.isEmpty(), () -> "skipped: " + unavailable.orElseThrow());
        Path deb = only("tapeq_", ".deb");
        try (SystemdContainer c = SystemdContainer.boot(List.of(deb))) {
            Run install = c.exec("dpkg", "-i", "/var/tmp/" + deb.getFileName());
            assertEquals(0, install.status(), install.out());
            // The container's network is loopback only: the network is never "online", and the unit's
            // After=network-online.target would wait for the wait-online service's timeout (2 min).
            c.exec("systemctl", "mask", "systemd-networkd-wait-online.service", "ifupdown-wait-online.service",
                    "NetworkManager-wait-online.service");
            // A request directory in the state directory (writable under ProtectSystem=strict), the simulated
            // library, the HTTP endpoint at the default port of the container's own network.
            assertEquals(0, c.exec("install", "-d", "-o", "tapeq", "-g", "tapeq", "/var/lib/tapeq/endit",
                    "/var/lib/tapeq/endit/in", "/var/lib/tapeq/endit/out", "/var/lib/tapeq/endit/request",
                    "/var/lib/tapeq/endit/trash").status());
            String config = String.join("\n",
                    "directories:",
                    "  - path: /var/lib/tapeq/endit",
                    "state: /var/lib/tapeq",
                    "library:",
                    "  backend: simulated",
                    "  simulated:",
                    "    drives: 1",
                    "    cartridges: 2",
                    "    speed: 100",
                    "scheduler:",
                    "  maxAttempts: 3",
                    "http:",
                    "  bind: 127.0.0.1:9270",
                    "");
            Files.writeString(c.path("/etc/tapeq/tapeq.yaml"), config);

            Run start = c.exec("systemctl", "start", "tapeq");
            assertEquals(0, start.status(), start.out() + journal(c));
            assertEquals("ready", awaitReady(c), journal(c));
            String pid = c.exec("systemctl", "show", "-p", "MainPID", "--value", "tapeq").out().strip();
            assertEquals("tapeq", c.exec("ps", "-o", "user=", "-p", pid).out().strip(), "the unit's user");

            Files.writeString(c.path("/etc/tapeq/tapeq.yaml"), config.replace("maxAttempts: 3", "maxAttempts: 5"));
            Run reload = c.exec("systemctl", "reload", "tapeq");
            assertEquals(0, reload.status(), reload.out() + journal(c));
            String reloaded = "Reloaded /etc/tapeq/tapeq.yaml: in effect scheduler.maxAttempts";
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!journal(c).contains(reloaded) && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            assertTrue(journal(c).contains(reloaded), journal(c));
            assertEquals(pid, c.exec("systemctl", "show", "-p", "MainPID", "--value", "tapeq").out().strip(),
                    "reloaded in the same process");
            assertEquals("ready", awaitReady(c));

            Run stop = c.exec("systemctl", "stop", "tapeq");
            assertEquals(0, stop.status(), stop.out() + journal(c));
            assertEquals("inactive", c.exec("systemctl", "show", "-p", "ActiveState", "--value", "tapeq").out().strip());
            assertEquals("success", c.exec("systemctl", "show", "-p", "Result", "--value", "tapeq").out().strip(),
                    journal(c));
            assertTrue(journal(c).contains("tapeq daemon stopped"), journal(c));
        }
    }

    /** The body of /ready from inside the container once it answers 200 (at most 90 s), else the last answer. */
    private static String awaitReady(SystemdContainer c) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        Run last;
        do {
            last = c.exec("curl", "-sS", "-f", "-m", "5", "http://127.0.0.1:9270/ready");
            if (last.status() == 0) {
                return last.out().strip();
            }
            Thread.sleep(200);
        } while (System.nanoTime() < deadline);
        return "not ready: " + last.out();
    }

    private static String journal(SystemdContainer c) throws Exception {
        return c.exec("journalctl", "-u", "tapeq", "--no-pager", "-o", "cat").out();
    }

    @Test
    void providerDeb_installed_putsThePluginIntoDcachesPluginDirectory() throws Exception {
        assumeDpkgAsRoot("tapeq-provider");
        Path plugin = Path.of(PLUGINS, "tapeq-provider");
        assumeTrue(!Files.exists(plugin), "skipped: " + plugin + " exists on this machine");
        try {
            Run install = run("dpkg", "-i", only("tapeq-provider_", ".deb").toString());
            assertEquals(0, install.status(), install.out());
            try (Stream<Path> files = Files.list(plugin)) {
                assertTrue(files.anyMatch(f -> f.getFileName().toString().matches("tapeq-provider-.*\\.jar")),
                        "no plugin jar in " + plugin);
            }
        } finally {
            Run purge = run("dpkg", "--purge", "tapeq-provider");
            assertEquals(0, purge.status(), purge.out());
        }
        assertFalse(Files.exists(plugin), plugin + " left after the purge");
    }

    @Test
    void rpms_listTheirFiles_markTheConfigNoreplace_createTheUser_andPassRpmlint() throws Exception {
        assumeTrue(run("sh", "-c", "command -v rpm").status() == 0, "skipped: no rpm (Debian: apt-get install rpm)");
        Path daemon = only("rpm/tapeq-daemon/RPMS/noarch/tapeq-", ".rpm");
        Path provider = only("rpm/tapeq-provider-provider/RPMS/noarch/tapeq-provider-", ".rpm");

        Run list = run("rpm", "-qlp", daemon.toString());
        assertEquals(0, list.status(), list.out());
        for (String path : List.of("/opt/tapeq/bin/tapeq", "/usr/bin/tapeq", "/usr/lib/systemd/system/tapeq.service",
                "/usr/lib/sysusers.d/tapeq.conf", "/etc/tapeq/tapeq.yaml", "/var/lib/tapeq",
                "/usr/share/doc/tapeq/operations.md", "/usr/share/man/man1/tapeq.1",
                "/usr/share/man/man1/tapeq-status.1", "/usr/share/bash-completion/completions/tapeq")) {
            assertTrue(list.out().lines().anyMatch(path::equals), path + " not in the RPM:\n" + list.out());
        }
        assertTrue(list.out().lines().anyMatch(l -> l.matches("/opt/tapeq/lib/tapeq-daemon-.*\\.jar")), list.out());
        // FILEFLAGS: c = %config, n = noreplace
        Run flags = run("rpm", "-qp", "--qf", "[%{FILEFLAGS:fflags} %{FILEMODES:perms} %{FILEUSERNAME}:"
                + "%{FILEGROUPNAME} %{FILENAMES}\\n]", daemon.toString());
        assertTrue(flags.out().lines().anyMatch("cn -rw-r----- root:tapeq /etc/tapeq/tapeq.yaml"::equals), flags.out());
        assertTrue(flags.out().lines().anyMatch(" -rwxr-xr-x root:root /opt/tapeq/bin/tapeq"::equals), flags.out());
        assertTrue(flags.out().lines().anyMatch(" drwxr-x--- tapeq:tapeq /var/lib/tapeq"::equals), flags.out());
        Run scripts = run("rpm", "-qp", "--scripts", daemon.toString());
        assertTrue(scripts.out().contains("preinstall scriptlet") && scripts.out().contains("useradd --system"),
                scripts.out());
        Run requires = run("rpm", "-qpR", daemon.toString());
        assertTrue(requires.out().contains("java-headless >= 1:17"), requires.out());

        Run providerList = run("rpm", "-qlp", provider.toString());
        assertTrue(providerList.out().lines().anyMatch(
                l -> l.matches(Pattern.quote(PLUGINS) + "/tapeq-provider/tapeq-provider-.*\\.jar")), providerList.out());

        if (run("sh", "-c", "command -v rpmlint").status() == 0) {
            Run lint = run("rpmlint", "-r", RPMLINTRC.toString(), daemon.toString(), provider.toString());
            assertEquals(0, lint.status(), lint.out());
        } else {
            System.out.println("PackagesIT: no rpmlint (Debian: apt-get install rpmlint), the RPMs are not linted");
        }
    }

    @Test
    void packages_libDirectory_holdsExactlyTheTarballsLib() throws Exception {
        assumeTrue(run("sh", "-c", "command -v dpkg-deb").status() == 0, "skipped: no dpkg-deb on this machine");
        Run tarball = run("tar", "-tzf", TARBALL.toString());
        assertEquals(0, tarball.status(), tarball.out());
        List<String> expected = libEntries(tarball.out(), "^tapeq-daemon-[^/]*/lib/([^/]+)$");
        assertFalse(expected.isEmpty(), "no lib/ in " + TARBALL + ":\n" + tarball.out());

        Run deb = run("dpkg-deb", "-c", only("tapeq_", ".deb").toString());
        assertEquals(0, deb.status(), deb.out());
        assertEquals(expected, libEntries(deb.out(), "^.* \\./opt/tapeq/lib/([^/]+)$"),
                "lib/ of the DEB");
        // man pages and completion where man and bash-completion look, not only under /opt/tapeq/share
        for (String path : List.of("./usr/share/man/man1/tapeq.1", "./usr/share/bash-completion/completions/tapeq")) {
            assertTrue(deb.out().lines().anyMatch(l -> l.endsWith(" " + path)), path + " not in the DEB:\n" + deb.out());
        }
        if (run("sh", "-c", "command -v rpm").status() == 0 && Files.isDirectory(DIR.resolve("rpm"))) {
            Run rpm = run("rpm", "-qlp", only("rpm/tapeq-daemon/RPMS/noarch/tapeq-", ".rpm").toString());
            assertEquals(0, rpm.status(), rpm.out());
            assertEquals(expected, libEntries(rpm.out(), "^/opt/tapeq/lib/([^/]+)$"), "lib/ of the RPM");
        }
    }

    /** The names captured by the pattern's group 1, one per matching line, sorted. */
    private static List<String> libEntries(String listing, String pattern) {
        Pattern p = Pattern.compile(pattern);
        return listing.lines().map(p::matcher).filter(Matcher::matches).map(m -> m.group(1)).sorted().toList();
    }

    /** Every document operations.md links to is next to it. */
    private static void assertDocsComplete(Path docs) throws IOException {
        String guide = Files.readString(docs.resolve("operations.md"));
        Matcher link = Pattern.compile("\\]\\(([A-Za-z0-9_.-]+\\.md)(#[^)]*)?\\)").matcher(guide);
        List<String> linked = new ArrayList<>();
        while (link.find()) {
            linked.add(link.group(1));
        }
        assertFalse(linked.isEmpty(), "operations.md links to no document");
        for (String doc : linked) {
            assertTrue(Files.isRegularFile(docs.resolve(doc)), "operations.md links to " + doc + ", not in " + docs);
        }
    }

    /** Polls /ready until it answers 200; the daemon's log when it ends or does not answer within 90 s. */
    private static String awaitReady(Process daemon, int port, Path log) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        String last = "no answer";
        while (System.nanoTime() < deadline && daemon.isAlive()) {
            try {
                HttpURLConnection c = (HttpURLConnection) URI.create("http://127.0.0.1:" + port + "/ready").toURL()
                        .openConnection();
                c.setConnectTimeout(1000);
                c.setReadTimeout(5000);
                int code = c.getResponseCode();
                last = code + " " + new String((code == 200 ? c.getInputStream() : c.getErrorStream()).readAllBytes(),
                        StandardCharsets.UTF_8);
                if (code == 200) {
                    return last.substring(4);
                }
            } catch (IOException notYet) {
                last = notYet.toString();
            }
            daemon.waitFor(200, TimeUnit.MILLISECONDS);
        }
        return "not ready (" + last + "); daemon " + (daemon.isAlive() ? "running" : "exited " + daemon.exitValue())
                + ", its log:\n" + Files.readString(log);
    }

    private static void assumeDpkgAsRoot(String packageName) throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "skipped: installing a DEB needs root");
        assumeTrue(run("sh", "-c", "command -v dpkg").status() == 0, "skipped: no dpkg on this machine");
        assumeTrue(!present(packageName), "skipped: " + packageName + " is on this machine (installed or its "
                + "configuration left)");
    }

    /**
     * Whether dpkg knows the package in any state but not-installed. The state is the third field of ${Status}
     * ("install ok installed", "deinstall ok config-files", "unknown ok not-installed"); an unknown package makes
     * dpkg-query fail.
     */
    static boolean present(String packageName) throws Exception {
        Run status = run("dpkg-query", "-W", "-f=${Status}", packageName);
        if (status.status() != 0) {
            return false;
        }
        String[] fields = status.out().strip().split(" ");
        return !(fields.length == 3 && fields[2].equals("not-installed"));
    }

    private static String owner(String path) throws Exception {
        return run("stat", "-c", "%U:%G %a", path).out().strip();
    }

    /** The one file of target/ whose path starts with prefix and ends with suffix. */
    private static Path only(String prefix, String suffix) throws IOException {
        try (Stream<Path> files = Files.walk(DIR, 5)) {
            List<Path> found = files.filter(f -> {
                String relative = DIR.relativize(f).toString();
                return relative.startsWith(prefix) && relative.endsWith(suffix);
            }).toList();
            assertEquals(1, found.size(), "packages " + prefix + "*" + suffix + " in " + DIR + ": " + found);
            return found.get(0);
        }
    }

    private static Run run(String... command) throws Exception {
        return SystemdContainer.host(command);
    }

    private static String property(String name) {
        String value = System.getProperty(name);
        if (value == null) {
            throw new IllegalStateException("system property " + name + " is not set (run through failsafe)");
        }
        return value;
    }
}
