package org.tapeq.scheduler.format;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Runs GNU tar (/usr/bin/tar) on archives the tests wrote, as an administrator would. */
final class GnuTar {
    static final String TAR = "/usr/bin/tar";

    private GnuTar() {
    }

    /** One line of {@code tar -tv}: the member's name and size. */
    record Listed(String name, long size) {
    }

    /** {@code tar -tvf archive}, parsed. */
    static List<Listed> list(Path archive) throws IOException, InterruptedException {
        return parse(run(archive.getParent(), null, "-tvf", archive.toString()));
    }

    /** {@code tar -tvf -} reading the archive that {@code writer} streams to its standard input. */
    static List<Listed> listStream(IoConsumer<OutputStream> writer) throws IOException, InterruptedException {
        return parse(run(null, writer, "-tvf", "-"));
    }

    /** {@code tar -xf archive -C dir}. */
    static void extract(Path archive, Path dir) throws IOException, InterruptedException {
        run(dir, null, "-xf", archive.toString(), "-C", dir.toString());
    }

    /** Writes to a process's standard input. */
    @FunctionalInterface
    interface IoConsumer<T> {
        void accept(T t) throws IOException;
    }

    private static List<Listed> parse(String listing) {
        List<Listed> result = new ArrayList<>();
        for (String line : listing.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            // -r--r--r-- tapeq/tapeq     1234 2025-01-31 12:00 NAME
            String[] f = line.trim().split("\\s+", 6);
            result.add(new Listed(f[5], Long.parseLong(f[2])));
        }
        return result;
    }

    private static String run(Path dir, IoConsumer<OutputStream> stdin, String... args)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(TAR);
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command);
        if (dir != null) {
            builder.directory(dir.toFile());
        }
        builder.environment().put("LC_ALL", "C");
        builder.environment().put("TZ", "UTC");
        Process process = builder.start();
        CompletableFuture<byte[]> out = readAll(process.getInputStream());
        CompletableFuture<byte[]> err = readAll(process.getErrorStream());
        try (OutputStream in = process.getOutputStream()) {
            if (stdin != null) {
                stdin.accept(in);
            }
        }
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IOException("tar " + String.join(" ", args) + " timed out");
        }
        String stderr = new String(err.join(), StandardCharsets.UTF_8);
        if (process.exitValue() != 0 || !stderr.isBlank()) {
            throw new IOException("tar " + String.join(" ", args) + " exited with " + process.exitValue()
                    + ": " + stderr);
        }
        return new String(out.join(), StandardCharsets.UTF_8);
    }

    /** Drains a process stream on its own thread (the common pool may have a single thread). */
    private static CompletableFuture<byte[]> readAll(InputStream in) {
        CompletableFuture<byte[]> result = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try (in) {
                result.complete(in.readAllBytes());
            } catch (IOException e) {
                result.completeExceptionally(e);
            }
        }, "gnu-tar-reader");
        reader.setDaemon(true);
        reader.start();
        return result;
    }
}
