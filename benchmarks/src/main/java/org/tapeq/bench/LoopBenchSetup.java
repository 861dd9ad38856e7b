package org.tapeq.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The loop-latency benchmark's files: two simulated libraries and their catalogs, written in virtual time before
 * the measured phases. Writing them takes longer than the phases on a busy machine, so a run can reuse a
 * preparation: {@code --prepared DIR} writes it into DIR once (SQLite catalogs only) and each run then works on a
 * copy, as the rebuild and the flushes change the catalogs.
 *
 * <ul>
 * <li>{@code rebuild-lib/} and catalog {@code rebuild}: one cartridge of N one-byte files, bytes kept, so that a
 *     rebuild reads real manifests;</li>
 * <li>{@code lib/} and catalog {@code main}: the burst's files spread over the cartridges, size-only.</li>
 * </ul>
 */
final class LoopBenchSetup {

    static final int REBUILD_FILE_BYTES = 1;
    private static final String MARKER = "prepared.txt";
    private static final long TIMEOUT_SECONDS = 1800;

    private final int rebuildFiles;
    private final int files;
    private final long fileSize;
    private final int cartridges;
    private final int drives;
    private final boolean postgres;
    private final String schema = "tapeq_bench_" + UUID.randomUUID().toString().replace("-", "");

    LoopBenchSetup(int rebuildFiles, int files, long fileSize, int cartridges, int drives, boolean postgres) {
        this.rebuildFiles = rebuildFiles;
        this.files = files;
        this.fileSize = fileSize;
        this.cartridges = cartridges;
        this.drives = drives;
        this.postgres = postgres;
    }

    LoopBenchEngine.Library rebuildLibrary(Path dir) {
        return new LoopBenchEngine.Library(dir.resolve("rebuild-lib"), true, "RB", 1, 1);
    }

    LoopBenchEngine.Library library(Path dir) {
        return new LoopBenchEngine.Library(dir.resolve("lib"), false, "TQ", cartridges, drives);
    }

    /** JDBC URL of catalog {@code name} ({@code rebuild} or {@code main}): a file in {@code dir} or a schema. */
    String catalogUrl(Path dir, String name) {
        if (!postgres) {
            return "jdbc:sqlite:" + dir.resolve(name + ".db");
        }
        String url = postgresUrl();
        return url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema + "_" + name;
    }

    /** What a preparation holds; a reused one must match. */
    private String description() {
        return String.format(Locale.ROOT, "rebuildFiles=%d files=%d fileSize=%d cartridges=%d drives=%d%n",
                rebuildFiles, files, fileSize, cartridges, drives);
    }

    /** Writes the files into {@code dir}; returns a line saying how long it took. */
    String prepare(Path dir) throws Exception {
        if (postgres) {
            try (Connection c = DriverManager.getConnection(postgresUrl()); Statement s = c.createStatement()) {
                s.execute("CREATE SCHEMA " + schema + "_rebuild");
                s.execute("CREATE SCHEMA " + schema + "_main");
            }
        }
        long t0 = System.nanoTime();
        Path source = Files.write(dir.resolve("source"), new byte[REBUILD_FILE_BYTES]);
        // Both at once: each mostly waits for the disk or the catalog.
        CompletableFuture<Double> rebuildSide = new CompletableFuture<>();
        Thread writer = new Thread(() -> {
            try {
                LoopBenchEngine.write(rebuildLibrary(dir), catalogUrl(dir, "rebuild"), rebuildFiles,
                        REBUILD_FILE_BYTES, source);
                rebuildSide.complete((System.nanoTime() - t0) / 1e9);
            } catch (Throwable e) {
                rebuildSide.completeExceptionally(e);
            }
        }, "prepare-rebuild");
        writer.start();
        LoopBenchEngine.write(library(dir), catalogUrl(dir, "main"), files, fileSize, null);
        double mainSeconds = (System.nanoTime() - t0) / 1e9;
        double rebuildSeconds = rebuildSide.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        return String.format(Locale.ROOT, "prepared in virtual time: %,d files of %d B on one cartridge (bytes kept) "
                        + "in %.1f s and, at the same time, %,d files of %,d B on %d cartridges (size-only) in %.1f s",
                rebuildFiles, REBUILD_FILE_BYTES, rebuildSeconds, files, fileSize, cartridges, mainSeconds);
    }

    /**
     * Copies the preparation in {@code prepared} into {@code dir}, writing it first if {@code prepared} holds none;
     * returns a line saying what was done.
     */
    String reuse(Path prepared, Path dir) throws Exception {
        if (postgres) {
            throw new IllegalArgumentException("--prepared works with the SQLite catalog only");
        }
        Path marker = prepared.resolve(MARKER);
        String line;
        if (Files.exists(marker)) {
            String found = Files.readString(marker);
            if (!found.equals(description())) {
                throw new IllegalArgumentException(prepared + " holds another preparation (" + found.strip()
                        + "); this run needs " + description().strip());
            }
            line = "reused the preparation in " + prepared;
        } else {
            Files.createDirectories(prepared);
            try (Stream<Path> old = Files.list(prepared)) {
                if (old.findAny().isPresent()) {
                    throw new IllegalArgumentException(prepared + " is neither empty nor a preparation");
                }
            }
            line = prepare(prepared) + ", kept in " + prepared;
            Files.writeString(marker, description());
        }
        long t0 = System.nanoTime();
        copy(prepared, dir);
        return String.format(Locale.ROOT, "%s; copied in %.1f s", line, (System.nanoTime() - t0) / 1e9);
    }

    /** Drops the PostgreSQL schemas of this run (nothing for SQLite, whose files go with the directory). */
    void dropCatalogs() {
        if (!postgres) {
            return;
        }
        try (Connection c = DriverManager.getConnection(postgresUrl()); Statement s = c.createStatement()) {
            for (String name : List.of("rebuild", "main")) {
                s.execute("DROP SCHEMA IF EXISTS " + schema + "_" + name + " CASCADE");
            }
        } catch (SQLException e) {
            System.out.println("  could not drop the schemas " + schema + "_*: " + e.getMessage());
        }
    }

    /**
     * The server the catalog tests use: {@code TAPEQ_TEST_POSTGRES_URL}, or a local one. The driver is loaded by
     * name: the shaded jar keeps one {@code java.sql.Driver} service file, SQLite's.
     */
    private static String postgresUrl() {
        try {
            Class.forName("org.postgresql.Driver");
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("--catalog postgres: the PostgreSQL driver is not in the benchmark jar", e);
        }
        String url = System.getenv("TAPEQ_TEST_POSTGRES_URL");
        return url != null && !url.isBlank() ? url : "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
    }

    private static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> all = Files.walk(from)) {
            for (Path p : all.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }

    static void delete(Path dir) throws IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
