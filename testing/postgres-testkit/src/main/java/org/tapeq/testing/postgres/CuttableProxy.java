package org.tapeq.testing.postgres;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A test-only TCP forwarder to a database server that can be cut (every connection through it closed, new ones
 * refused: what clients see while the server restarts) and restored on the same port. Two threads per
 * connection; test traffic only. A proxy made {@link #closed(String, int)} starts cut: a server not there yet.
 */
public final class CuttableProxy implements AutoCloseable {

    private final InetSocketAddress target;
    private final int port;
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private volatile ServerSocket server;

    /** A proxy to {@code host:targetPort} that refuses connections until {@link #restore()}. */
    public static CuttableProxy closed(String host, int targetPort) throws IOException {
        CuttableProxy proxy = new CuttableProxy(host, targetPort);
        proxy.cut();
        return proxy;
    }

    /** Forwards a port of its own on the loopback address to {@code host:targetPort}. */
    public CuttableProxy(String host, int targetPort) throws IOException {
        this.target = new InetSocketAddress(host, targetPort);
        this.port = listen(0);
    }

    /** The port clients connect to (the same after {@link #restore()}). */
    public int port() {
        return port;
    }

    /** Closes every forwarded connection and refuses new ones until {@link #restore()}. */
    public synchronized void cut() throws IOException {
        ServerSocket s = server;
        server = null;
        if (s != null) {
            s.close();
        }
        for (Socket socket : open) {
            socket.close();
        }
        open.clear();
    }

    /** Accepts connections again, on the same port. */
    public synchronized void restore() throws IOException {
        if (server == null) {
            listen(port);
        }
    }

    private int listen(int on) throws IOException {
        ServerSocket s = new ServerSocket();
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), on));
        server = s;
        Thread accept = new Thread(() -> accept(s), "test-proxy-accept");
        accept.setDaemon(true);
        accept.start();
        return s.getLocalPort();
    }

    private void accept(ServerSocket s) {
        while (!s.isClosed()) {
            try {
                Socket client = s.accept();
                Socket upstream = new Socket();
                upstream.connect(target, 3_000);
                open.add(client);
                open.add(upstream);
                pump(client, upstream);
                pump(upstream, client);
            } catch (IOException e) {
                // closed by cut() or close(), or the server refused: the client sees its connection end
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try (from; to) {
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // either side closed
            }
            open.remove(from);
            open.remove(to);
        }, "test-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    @Override
    public void close() throws IOException {
        cut();
    }
}
