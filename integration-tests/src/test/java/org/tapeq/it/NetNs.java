package org.tapeq.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A network namespace of a test's own, joined to the root namespace by a veth pair on a private /30
 * ({@code 10.231.X.Y}: the root side {@link #hostAddress()}, the namespace's side {@link #innerAddress()}), as
 * another host on the site's network; {@link #down()} cuts the link from inside the namespace ({@code ip link set
 * ... down}) and {@link #up()} restores it. {@link #close()} deletes the namespace, which takes the pair with it.
 * Needs root and {@code ip} ({@link #available()}).
 */
final class NetNs implements AutoCloseable {

    private final String name;
    private final String hostSide;
    private final String innerSide;
    /** The /30's address: {@code 10.231.x.y} with y a multiple of 4. */
    private final String network;
    private final int last;
    private boolean created;

    private NetNs(String suffix, String network, int last) {
        this.name = "tqit-" + suffix;
        this.hostSide = "tqh" + suffix;
        this.innerSide = "tqn" + suffix;
        this.network = network;
        this.last = last;
    }

    /** Whether this JVM may make network namespaces: root, with {@code ip} installed. */
    static boolean available() {
        return OwnPostgres.isRoot() && (Files.isExecutable(Path.of("/usr/sbin/ip"))
                || Files.isExecutable(Path.of("/sbin/ip")) || Files.isExecutable(Path.of("/usr/bin/ip")));
    }

    static NetNs create() throws IOException, InterruptedException {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        NetNs ns = new NetNs(String.format("%06x", r.nextInt(1 << 24)), "10.231." + r.nextInt(256) + ".",
                r.nextInt(64) * 4);
        try {
            ns.ip("netns", "add", ns.name);
            ns.created = true;
            ns.ip("link", "add", ns.hostSide, "type", "veth", "peer", "name", ns.innerSide);
            ns.ip("link", "set", ns.innerSide, "netns", ns.name);
            ns.ip("addr", "add", ns.hostAddress() + "/30", "dev", ns.hostSide);
            ns.ip("link", "set", ns.hostSide, "up");
            ns.inside("addr", "add", ns.innerAddress() + "/30", "dev", ns.innerSide);
            ns.inside("link", "set", ns.innerSide, "up");
            ns.inside("link", "set", "lo", "up");
        } catch (IOException | InterruptedException | RuntimeException e) {
            ns.close();
            throw e;
        }
        return ns;
    }

    String name() {
        return name;
    }

    /** The root namespace's end of the link. */
    String hostAddress() {
        return network + (last + 1);
    }

    /** The namespace's end of the link. */
    String innerAddress() {
        return network + (last + 2);
    }

    /** Cuts the link from inside the namespace. */
    void down() throws IOException, InterruptedException {
        inside("link", "set", innerSide, "down");
    }

    /** Restores the link. */
    void up() throws IOException, InterruptedException {
        inside("link", "set", innerSide, "up");
    }

    private void inside(String... args) throws IOException, InterruptedException {
        List<String> c = new ArrayList<>(List.of("netns", "exec", name, "ip"));
        c.addAll(List.of(args));
        ip(c.toArray(String[]::new));
    }

    private void ip(String... args) throws IOException, InterruptedException {
        List<String> c = new ArrayList<>(List.of("ip"));
        c.addAll(List.of(args));
        Process p = new ProcessBuilder(c).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", c) + " failed: " + out.strip());
        }
    }

    /** Deletes the namespace (its end of the pair, and so the pair) and the root side if it is left. */
    @Override
    public void close() throws IOException {
        if (!created) {
            return;
        }
        created = false;
        try {
            try {
                ip("link", "del", hostSide);
            } catch (IOException e) {
                // gone already: the namespace's end went down with the namespace
            }
            ip("netns", "del", name);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while deleting network namespace " + name, e);
        }
    }
}
