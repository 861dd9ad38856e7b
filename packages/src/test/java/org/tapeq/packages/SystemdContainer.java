package org.tapeq.packages;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

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
 * mount, UTS, IPC, network and PID namespaces, only while that process (its handle, which carries its start time,
 * so a reused pid is not it) is alive. Closing sends systemd-nspawn SIGTERM, which it turns into an orderly
 * shutdown of the container (SIGRTMIN+3 to its init); SIGKILL to both after a bound.
 *
 * <p>Whether it can work here is probed for real ({@link #unavailable()}): root with the binaries is not enough
 * (in an unprivileged container the mounts or nspawn fail), so it mounts the tmpfs and overlay and runs
 * {@code /bin/true} with systemd-nspawn in them. The overlay covers only the root file system, so a separate
 * /usr, /var, /etc or /opt makes it unavailable. Each container's directory is named after the JVM that made it
 * (pid and start time): one whose JVM is gone (killed before close) is cleaned up by the next run, its
 * systemd-nspawn ended and its mounts undone.
 */
final class SystemdContainer implements AutoCloseable {

    private static final String SYSTEMD = "/lib/systemd/systemd";
    /** Where the containers' directories are made, each named {@link #PREFIX}{@code <pid>-<start ms>-<random>}. */
    private static final Path TMP = Path.of("/tmp");
    private static final String PREFIX = "tapeq-nspawn-";
    private static final Pattern OWNED = Pattern.compile(Pattern.quote(PREFIX) + "(\\d+)-(\\d+)-.*");
    /** The directories the packages write to or run from that the overlay of / must see. */
    private static final List<String> ON_ROOT = List.of("/usr", "/var", "/etc", "/opt");
    private static final long STOP_SECONDS = 60;

    private final Path base;
    private final Path root;
    private final Process nspawn;
    private final ProcessHandle init;

    /** The output and exit status of a command. */
    record Run(int status, String out) {
    }

    private SystemdContainer(Path base, Path root, Process nspawn, ProcessHandle init) {
        this.base = base;
        this.root = root;
        this.nspawn = nspawn;
        this.init = init;
    }

    /**
     * Why a container cannot be booted here, or empty if it can. Cleans up the containers of runs whose JVM is gone,
     * then tries it: the mounts and a systemd-nspawn run of {@code /bin/true} in a scratch directory.
     */
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
        List<String> separate = separateFileSystems(Path.of("/"), ON_ROOT);
        if (!separate.isEmpty()) {
            return Optional.of(separate + " not on the root file system: the overlay of / would show them empty");
        }
        cleanStale();
        Path base = newBase();
        Path root = base.resolve("root");
        try {
            Optional<String> failed = mount(base, root);
            if (failed.isPresent()) {
                return Optional.of("cannot mount the container's file system here (no CAP_SYS_ADMIN?): "
                        + failed.get().strip());
            }
            Run nspawn = host("timeout", "60", "systemd-nspawn", "--quiet", "-D", root.toString(), "--register=no",
                    "--keep-unit", "--private-network", "--machine=" + base.getFileName(), "--", "/bin/true");
            if (nspawn.status != 0) {
                return Optional.of("systemd-nspawn cannot run a container here (status " + nspawn.status + "): "
                        + nspawn.out.strip());
            }
            return Optional.empty();
        } finally {
            unmount(base, root);
        }
    }

    /** Those of {@code dirs} that are another file system than {@code root} (by their device). */
    static List<String> separateFileSystems(Path root, List<String> dirs) throws IOException {
        Object device = Files.getAttribute(root, "unix:dev");
        List<String> separate = new ArrayList<>();
        for (String dir : dirs) {
            Path p = root.resolve(dir.substring(1));
            if (Files.isDirectory(p) && !device.equals(Files.getAttribute(p, "unix:dev"))) {
                separate.add(dir);
            }
        }
        return separate;
    }

    /** Boots the container with {@code files} copied into its {@code /var/tmp}; waits until its boot is over. */
    static SystemdContainer boot(List<Path> files) throws Exception {
        cleanStale();
        Path base = newBase();
        Path root = base.resolve("root");
        Process nspawn = null;
        try {
            mount(base, root).ifPresent(failed -> {
                throw new IllegalStateException(failed);
            });
            // A machine ID of its own (systemd makes one at boot): the container's journal is not this machine's.
            Files.deleteIfExists(root.resolve("etc/machine-id"));
            for (Path f : files) {
                Files.copy(f, root.resolve("var/tmp").resolve(f.getFileName()));
            }
            nspawn = new ProcessBuilder("systemd-nspawn", "--quiet", "-D", root.toString(), "--boot",
                    "--register=no", "--keep-unit", "--private-network", "--console=passive",
                    "--machine=" + base.getFileName(), "--", "--unit=basic.target")
                    .redirectErrorStream(true).redirectOutput(base.resolve("nspawn.log").toFile()).start();
            ProcessHandle init = initOf(nspawn, base);
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
                        Long.toString(init.pid())).out;
                c.close();
                throw new IllegalStateException("the container did not boot: " + booted.out + "\nnspawn's log:\n"
                        + log + "\nprocesses:\n" + tree);
            }
            return c;
        } catch (Exception e) {
            if (nspawn != null) {
                stop(nspawn.toHandle(), 0);
            }
            unmount(base, root);
            throw e;
        }
    }

    /** A new directory for a container, named after this JVM (pid and start time) for {@link #cleanStale()}. */
    private static Path newBase() throws IOException {
        ProcessHandle jvm = ProcessHandle.current();
        return Files.createTempDirectory(TMP, PREFIX + jvm.pid() + "-" + startMillis(jvm) + "-");
    }

    /** Mounts the tmpfs on {@code base} and the overlay of / on {@code root} in it; the error, if one failed. */
    private static Optional<String> mount(Path base, Path root) throws IOException, InterruptedException {
        Run tmpfs = host("mount", "-t", "tmpfs", "-o", "mode=0755", "tmpfs", base.toString());
        if (tmpfs.status != 0) {
            return Optional.of(tmpfs.out);
        }
        for (String dir : List.of("upper", "work", "root")) {
            Files.createDirectories(base.resolve(dir));
        }
        Run overlay = host("mount", "-t", "overlay", "overlay", "-o", "lowerdir=/,upperdir=" + base.resolve("upper")
                + ",workdir=" + base.resolve("work"), root.toString());
        return overlay.status == 0 ? Optional.empty() : Optional.of(overlay.out);
    }

    /**
     * Cleans up the containers whose JVM is gone (killed before it closed them): ends their systemd-nspawn and
     * undoes their mounts. A container whose JVM (same pid and start time) still runs is left alone.
     */
    static void cleanStale() throws IOException, InterruptedException {
        List<Path> stale = new ArrayList<>();
        try (Stream<Path> dirs = Files.list(TMP)) {
            dirs.filter(d -> isStale(d.getFileName().toString())).forEach(stale::add);
        }
        for (Path base : stale) {
            String root = base.resolve("root").toString();
            List<ProcessHandle> nspawns = ProcessHandle.allProcesses()
                    .filter(p -> p.info().command().orElse("").endsWith("/systemd-nspawn"))
                    .filter(p -> List.of(p.info().arguments().orElse(new String[0])).contains(root)).toList();
            for (ProcessHandle nspawn : nspawns) {
                stop(nspawn, STOP_SECONDS);
            }
            unmount(base, base.resolve("root"));
        }
    }

    private static boolean isStale(String name) {
        Matcher m = OWNED.matcher(name);
        if (!m.matches()) {
            return false;
        }
        Optional<ProcessHandle> owner = ProcessHandle.of(Long.parseLong(m.group(1)));
        // A start time this JVM cannot read counts as the owner's: better a leftover than another run's container.
        long start = owner.map(SystemdContainer::startMillis).orElse(0L);
        return owner.isEmpty() || (start != -1 && start != Long.parseLong(m.group(2)));
    }

    private static long startMillis(ProcessHandle p) {
        return p.info().startInstant().map(i -> i.toEpochMilli()).orElse(-1L);
    }

    /**
     * Ends a systemd-nspawn: SIGTERM (it shuts the container down in order), SIGKILL to it and its children (the
     * container's init) if it is not gone within {@code seconds}. Handles carry the start time: a pid reused by
     * another process is not signalled.
     */
    private static void stop(ProcessHandle nspawn, long seconds) throws InterruptedException {
        List<ProcessHandle> children = nspawn.children().toList();
        nspawn.destroy();
        try {
            nspawn.onExit().get(seconds, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
            children = Stream.concat(children.stream(), nspawn.children()).distinct().toList();
            nspawn.destroyForcibly();
            children.forEach(ProcessHandle::destroyForcibly);
            try {
                nspawn.onExit().get(10, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException ignored) {
                // unmount(..) detaches what it cannot unmount
            }
        }
    }

    /**
     * nspawn's child that runs systemd, the container's init, once it is there (at most 30 s). Its first child
     * sets up the container and ends; the init is the next one.
     */
    private static ProcessHandle initOf(Process nspawn, Path base) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline && nspawn.isAlive()) {
            Optional<ProcessHandle> init = nspawn.toHandle().children()
                    .filter(p -> p.info().command().orElse("").endsWith("/systemd/systemd")).findFirst();
            if (init.isPresent()) {
                return init.get();
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("systemd-nspawn started no container: "
                + Files.readString(base.resolve("nspawn.log")));
    }

    /** Runs a command in the container (as root), its output and status. */
    Run exec(String... command) throws IOException, InterruptedException {
        if (!init.isAlive()) {
            throw new IllegalStateException("the container's init (pid " + init.pid() + ") is gone");
        }
        List<String> full = new ArrayList<>(List.of("nsenter", "-t", Long.toString(init.pid()), "-m", "-u", "-i",
                "-n", "-p", "--"));
        full.addAll(List.of(command));
        return host(full.toArray(String[]::new));
    }

    /** A file of the container's file system, as this machine sees it. */
    Path path(String absolute) {
        return root.resolve(absolute.substring(1));
    }

    /** Shuts the container down (SIGKILL after 60 s) and removes it with everything written in it. */
    @Override
    public void close() throws IOException {
        try {
            stop(nspawn.toHandle(), STOP_SECONDS);
            init.destroyForcibly();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            nspawn.destroyForcibly();
            init.destroyForcibly();
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

    static Run host(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        process.getOutputStream().close();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return new Run(process.waitFor(), out);
    }
}
