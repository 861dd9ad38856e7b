package org.tapeq.packages;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A throwaway copy of this machine booted with systemd as its init, for testing the packaged unit with a real
 * {@code systemctl}: the machine's root file system seen through an overlay whose writes go to a tmpfs, booted by
 * {@code systemd-nspawn} (Debian's package {@code systemd-container}) to {@code basic.target}, with a network of
 * its own (only loopback), and commands run in it with {@code nsenter}. Nothing it does reaches this machine: a
 * package installed in it, its users and its journal are gone with the tmpfs when it is closed.
 *
 * <p>Design notes. The overlay makes the container this machine's own Debian with its Java, so nothing is
 * downloaded and it boots in a second or two. {@code --register=no --keep-unit} because this machine need not
 * run systemd itself (no machined, no system bus); {@code --private-network} so that the services the copy would
 * start cannot take this machine's ports; {@code basic.target} so that it starts none of this machine's
 * services (databases and the like) at all. The container's init is nspawn's child process; nsenter joins its
 * mount, UTS, IPC, network and PID namespaces.
 */
final class SystemdContainer implements AutoCloseable {

    private static final String SYSTEMD = "/lib/systemd/systemd";

    private final Path base;
    private final Path root;
    private final Process nspawn;
    private final long init;

    /** The output and exit status of a command. */
    record Run(int status, String out) {
    }

    private SystemdContainer(Path base, Path root, Process nspawn, long init) {
        this.base = base;
        this.root = root;
        this.nspawn = nspawn;
        this.init = init;
    }

    /** Why a container cannot be booted here, or empty if it can. */
    static Optional<String> unavailable() throws Exception {
        if (!"root".equals(System.getProperty("user.name"))) {
            return Optional.of("booting a container needs root");
        }
        if (host("sh", "-c", "command -v systemd-nspawn && command -v nsenter").status != 0) {
            return Optional.of("no systemd-nspawn (apt-get install systemd-container) or nsenter");
        }
        if (!Files.isExecutable(Path.of(SYSTEMD))) {
            return Optional.of("no " + SYSTEMD);
        }
        if (!Files.readString(Path.of("/proc/filesystems")).contains("\toverlay\n")) {
            return Optional.of("the kernel has no overlay file system");
        }
        return Optional.empty();
    }

    /** Boots the container with {@code files} copied into its {@code /var/tmp}; waits until its boot is over. */
    static SystemdContainer boot(List<Path> files) throws Exception {
        Path base = Files.createTempDirectory(Path.of("/tmp"), "tapeq-nspawn-");
        Path root = base.resolve("root");
        check(host("mount", "-t", "tmpfs", "-o", "mode=0755", "tmpfs", base.toString()));
        Process nspawn = null;
        try {
            for (String dir : List.of("upper", "work", "root")) {
                Files.createDirectories(base.resolve(dir));
            }
            check(host("mount", "-t", "overlay", "overlay", "-o", "lowerdir=/,upperdir=" + base.resolve("upper")
                    + ",workdir=" + base.resolve("work"), root.toString()));
            // A machine ID of its own (systemd makes one at boot): the container's journal is not this machine's.
            Files.deleteIfExists(root.resolve("etc/machine-id"));
            for (Path f : files) {
                Files.copy(f, root.resolve("var/tmp").resolve(f.getFileName()));
            }
            nspawn = new ProcessBuilder("systemd-nspawn", "--quiet", "-D", root.toString(), "--boot",
                    "--register=no", "--keep-unit", "--private-network", "--console=passive",
                    "--machine=" + base.getFileName(), "--", "--unit=basic.target")
                    .redirectErrorStream(true).redirectOutput(base.resolve("nspawn.log").toFile()).start();
            long init = initOf(nspawn, base);
            SystemdContainer c = new SystemdContainer(base, root, nspawn, init);
            // "offline" or no bus until systemd has set up its runtime directory; then --wait waits for the boot.
            Run booted;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            do {
                booted = c.exec("timeout", "30", "systemctl", "is-system-running", "--wait");
            } while (!booted(booted) && System.nanoTime() < deadline && sleep(200));
            if (!booted(booted)) {
                String log = Files.readString(base.resolve("nspawn.log"));
                String tree = host("ps", "-o", "pid,ppid,args", "--ppid", Long.toString(nspawn.pid()), "-p",
                        Long.toString(init)).out;
                c.close();
                throw new IllegalStateException("the container did not boot: " + booted.out + "\nnspawn's log:\n"
                        + log + "\nprocesses:\n" + tree);
            }
            return c;
        } catch (Exception e) {
            if (nspawn != null) {
                nspawn.destroyForcibly().waitFor();
            }
            unmount(base, root);
            throw e;
        }
    }

    /**
     * nspawn's child that runs systemd, the container's init, once it is there (at most 30 s). Its first child
     * sets up the container and ends; the init is the next one.
     */
    private static long initOf(Process nspawn, Path base) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline && nspawn.isAlive()) {
            Optional<ProcessHandle> init = nspawn.toHandle().children()
                    .filter(p -> p.info().command().orElse("").endsWith("/systemd/systemd")).findFirst();
            if (init.isPresent()) {
                return init.get().pid();
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("systemd-nspawn started no container: "
                + Files.readString(base.resolve("nspawn.log")));
    }

    /** Runs a command in the container (as root), its output and status. */
    Run exec(String... command) throws IOException, InterruptedException {
        List<String> full = new ArrayList<>(List.of("nsenter", "-t", Long.toString(init), "-m", "-u", "-i", "-n",
                "-p", "--"));
        full.addAll(List.of(command));
        return host(full.toArray(String[]::new));
    }

    /** A file of the container's file system, as this machine sees it. */
    Path path(String absolute) {
        return root.resolve(absolute.substring(1));
    }

    /** Powers the container off (SIGKILL after 60 s) and removes it with everything written in it. */
    @Override
    public void close() throws IOException {
        try {
            if (nspawn.isAlive()) {
                exec("systemctl", "poweroff", "--no-block");
                if (!nspawn.waitFor(60, TimeUnit.SECONDS)) {
                    ProcessHandle.of(init).ifPresent(ProcessHandle::destroyForcibly);
                    nspawn.destroyForcibly().waitFor();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            ProcessHandle.of(init).ifPresent(ProcessHandle::destroyForcibly);
            nspawn.destroyForcibly();
        } finally {
            unmount(base, root);
        }
    }

    private static void unmount(Path base, Path root) throws IOException {
        try {
            if (host("umount", root.toString()).status != 0) {
                host("umount", "-l", root.toString());
            }
            host("umount", "-l", base.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Files.deleteIfExists(base);
    }

    /** Whether the boot is over: every unit started ("running"), or some failed ("degraded"). */
    private static boolean booted(Run isSystemRunning) {
        String state = isSystemRunning.out.strip();
        return state.equals("running") || state.equals("degraded");
    }

    private static boolean sleep(long millis) throws InterruptedException {
        Thread.sleep(millis);
        return true;
    }

    private static void check(Run run) {
        if (run.status != 0) {
            throw new IllegalStateException(run.out);
        }
    }

    static Run host(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        process.getOutputStream().close();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return new Run(process.waitFor(), out);
    }
}
