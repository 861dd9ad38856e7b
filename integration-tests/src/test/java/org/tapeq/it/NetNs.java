package org.tapeq.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A network namespace of a test's own, joined to the root namespace by veth pairs ("links"), each on a private
 * /30 of {@code 10.231.0.0/16} (the root side {@link #hostAddress}, the namespace's side {@link #innerAddress}), as
 * another host on the site's networks; {@link #down} cuts a link from inside the namespace ({@code ip link set ...
 * down}) and {@link #up} restores it. {@link #close()} deletes the namespace and the pairs. Needs root and
 * {@code ip} ({@link #available()}).
 */
final class NetNs implements AutoCloseable {

    /** The subnet every namespace's links are taken from. */
    static final String SUBNET = "10.231.0.0/16";

    private final String name;
    private final String suffix;
    private final int links;
    /** {@code 10.231.x.}: the links' /30s follow each other from {@link #first}. */
    private final String network;
    private final int first;
    private boolean created;

    private NetNs(String suffix, int links, String network, int first) {
        this.name = "tqit-" + suffix;
        this.suffix = suffix;
        this.links = links;
        this.network = network;
        this.first = first;
    }

    /** Whether this JVM may make network namespaces: root, with {@code ip} installed. */
    static boolean available() {
        return OwnPostgres.isRoot() && (Files.isExecutable(Path.of("/usr/sbin/ip"))
                || Files.isExecutable(Path.of("/sbin/ip")) || Files.isExecutable(Path.of("/usr/bin/ip")));
    }

    /** A namespace with {@code links} (1 to 4) links to the root namespace, all up. */
    static NetNs create(int links) throws IOException, InterruptedException {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        NetNs ns = new NetNs(String.format("%06x", r.nextInt(1 << 24)), links, "10.231." + r.nextInt(256) + ".",
                r.nextInt(16) * 16);
        try {
            ns.ip("netns", "add", ns.name);
            ns.created = true;
            ns.inside("link", "set", "lo", "up");
            for (int i = 0; i < links; i++) {
                ns.ip("link", "add", ns.hostSide(i), "type", "veth", "peer", "name", ns.innerSide(i));
                ns.ip("link", "set", ns.innerSide(i), "netns", ns.name);
                ns.ip("addr", "add", ns.hostAddress(i) + "/30", "dev", ns.hostSide(i));
                ns.ip("link", "set", ns.hostSide(i), "up");
                ns.inside("addr", "add", ns.innerAddress(i) + "/30", "dev", ns.innerSide(i));
                ns.inside("link", "set", ns.innerSide(i), "up");
            }
        } catch (IOException | InterruptedException | RuntimeException e) {
            ns.close();
            throw e;
        }
        return ns;
    }

    String name() {
        return name;
    }

    private String hostSide(int link) {
        return "tqh" + suffix + link;
    }

    private String innerSide(int link) {
        return "tqn" + suffix + link;
    }

    /** The root namespace's end of a link. */
    String hostAddress(int link) {
        return network + (first + 4 * link + 1);
    }

    /** The namespace's end of a link. */
    String innerAddress(int link) {
        return network + (first + 4 * link + 2);
    }

    /** Cuts a link from inside the namespace. */
    void down(int link) throws IOException, InterruptedException {
        inside("link", "set", innerSide(link), "down");
    }

    /** Restores a link. */
    void up(int link) throws IOException, InterruptedException {
        inside("link", "set", innerSide(link), "up");
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

    /** Deletes the pairs' root sides (if left) and the namespace. */
    @Override
    public void close() throws IOException {
        if (!created) {
            return;
        }
        created = false;
        try {
            for (int i = 0; i < links; i++) {
                try {
                    ip("link", "del", hostSide(i));
                } catch (IOException e) {
                    // not made, or gone already
                }
            }
            ip("netns", "del", name);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while deleting network namespace " + name, e);
        }
    }
}
