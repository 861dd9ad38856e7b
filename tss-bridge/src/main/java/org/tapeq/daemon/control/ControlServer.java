package org.tapeq.daemon.control;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import jdk.net.ExtendedSocketOptions;
import jdk.net.UnixDomainPrincipal;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.catalog.CatalogUnavailableException;
import org.tapeq.scheduler.time.Threads;

/**
 * The administrative channel: a Unix-domain socket in the state directory, readable and writable only by the
 * daemon's user and group. One request per connection: a JSON line {@code {"command": ..., "args": [...]}},
 * answered by one JSON line {@code {"ok": true, "result": ...}} or {@code {"ok": false, "error": "..."}}.
 * The commands are the {@link AdminCommand}s. They run on a small bounded pool ({@code tapeq-control-N}); a
 * client that does not send its request within {@link #READ_TIMEOUT_SECONDS} is disconnected, so one slow tape
 * task or idle client cannot block the others.
 */
public final class ControlServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ControlServer.class);
    static final int MAX_REQUEST_BYTES = 64 * 1024;
    static final int READ_TIMEOUT_SECONDS = 10;
    private static final int WORKERS = 4;

    private final Path socket;
    private final ServerSocketChannel server;
    private final Thread acceptor;
    private final ExecutorService worker;
    private final ScheduledExecutorService watchdog;

    private ControlServer(Path socket, ServerSocketChannel server, ControlTarget daemon) {
        this.socket = socket;
        this.server = server;
        this.worker = new ThreadPoolExecutor(WORKERS, WORKERS, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>(16),
                Threads.numbered("tapeq-control"), new ThreadPoolExecutor.AbortPolicy());
        this.watchdog = Executors.newSingleThreadScheduledExecutor(Threads.named("tapeq-control-watchdog"));
        this.acceptor = new Thread(() -> acceptLoop(daemon), "tapeq-control-accept");
        this.acceptor.setDaemon(true);
    }

    public static ControlServer start(Path socket, ControlTarget daemon) throws IOException {
        Files.deleteIfExists(socket); // a stale socket of a killed daemon; the state lock says we own it
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket));
        try {
            Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-rw----"));
        } catch (UnsupportedOperationException e) {
            LOG.warn("Cannot restrict the permissions of {}: {}", socket, e.toString());
        }
        ControlServer s = new ControlServer(socket, server, daemon);
        s.acceptor.start();
        LOG.info("Control socket {}", socket);
        return s;
    }

    private void acceptLoop(ControlTarget daemon) {
        while (server.isOpen()) {
            SocketChannel ch;
            try {
                ch = server.accept();
            } catch (IOException e) {
                if (server.isOpen()) {
                    LOG.warn("Control socket: {}", e.toString());
                }
                return;
            }
            try {
                worker.execute(() -> serve(ch, daemon));
            } catch (RejectedExecutionException e) {
                reply(ch, ControlProtocol.error("the daemon is busy with other commands; try again"));
            }
        }
    }

    private void serve(SocketChannel ch, ControlTarget daemon) {
        ObjectNode answer;
        ScheduledFuture<?> deadline = watchdog.schedule(() -> {
            try {
                ch.close(); // a client that sends nothing must not hold a worker
            } catch (IOException e) {
                LOG.debug("closing an idle control client: {}", e.toString());
            }
        }, READ_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        try {
            JsonNode request;
            try {
                request = ControlProtocol.readLine(ControlProtocol.input(ch), MAX_REQUEST_BYTES);
            } finally {
                deadline.cancel(false);
            }
            AdminCommand command = ControlProtocol.decode(request);
            LOG.info("Control: {} {} by {}", command.wire().name(), command.args(), caller(ch));
            String refusal = command instanceof AdminCommand.Status ? null : daemon.refusal();
            answer = refusal != null ? ControlProtocol.error(command.wire().name() + ": " + refusal)
                    : ControlProtocol.ok(command.execute(daemon));
        } catch (IllegalArgumentException e) {
            answer = ControlProtocol.error(e.getMessage());
        } catch (CatalogUnavailableException e) {
            LOG.warn("Control command failed: {}", e.getMessage());
            answer = ControlProtocol.error("the catalog is unreachable (" + e.getMessage() + "); the daemon waits "
                    + "for it and resumes by itself; try again once `tapeq status` shows the catalog reachable");
        } catch (Exception e) {
            LOG.warn("Control command failed", e);
            answer = ControlProtocol.error(e.getMessage() != null ? e.getMessage() : e.toString());
        }
        reply(ch, answer);
    }

    /**
     * Who is at the other end: the user the kernel gives for the peer of a Unix-domain socket ({@code SO_PEERCRED},
     * which the JDK reads for Unix-domain socket channels on Linux and macOS since Java 16), or a note why not.
     */
    static String caller(SocketChannel ch) {
        try {
            UnixDomainPrincipal peer = ch.getOption(ExtendedSocketOptions.SO_PEERCRED);
            return "user " + peer.user().getName();
        } catch (IOException | UnsupportedOperationException e) {
            return "an unknown user (" + e + ")";
        }
    }

    private static void reply(SocketChannel ch, ObjectNode answer) {
        try (ch) {
            ControlProtocol.writeLine(Channels.newOutputStream(ch), answer);
        } catch (IOException e) {
            LOG.debug("Control client went away: {}", e.toString());
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        worker.shutdownNow();
        watchdog.shutdownNow();
        Files.deleteIfExists(socket);
    }
}
