package org.tapeq.daemon.http;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.time.Threads;
import org.tapeq.daemon.control.StatusPage;
import org.tapeq.daemon.metrics.DaemonMetrics;

/**
 * The read-only HTTP endpoint: {@code GET /} (the status page: {@link StatusPageAssets}, a static page that reads
 * {@code /status}), {@code GET /metrics} (Prometheus text format), {@code GET /status} (JSON;
 * {@code ?offset=N&limit=N} pages its lists, {@link StatusPage}) and
 * {@code GET /ready} (200 {@code ready} when the daemon serves and its catalog answers, else 503 with the reason:
 * for a load balancer, a monitoring probe or an operator). Anything else is 404, any other method 405. One named
 * thread; a slow scrape cannot pile up threads.
 */
public final class HttpEndpoint implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(HttpEndpoint.class);

    private final HttpServer server;
    private final ExecutorService executor;

    private HttpEndpoint(HttpServer server, ExecutorService executor) {
        this.server = server;
        this.executor = executor;
    }

    /** {@code notReady}: null when ready, else why not. */
    public static HttpEndpoint start(InetSocketAddress bind, DaemonMetrics metrics, Function<StatusPage, byte[]> status,
                                     Supplier<String> notReady) throws IOException {
        HttpServer server;
        try {
            server = HttpServer.create(bind, 16);
        } catch (IOException e) {
            throw new IOException("http.bind: cannot listen on " + bind + ": " + e.getMessage(), e);
        }
        StatusPageAssets assets = StatusPageAssets.load();
        ExecutorService executor = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>(64),
                Threads.named("tapeq-http"), new ThreadPoolExecutor.DiscardPolicy());
        server.setExecutor(executor);
        server.createContext("/", exchange -> {
            try (exchange) {
                if (!"GET".equals(exchange.getRequestMethod()) && !"HEAD".equals(exchange.getRequestMethod())) {
                    send(exchange, 405, "text/plain", "read-only: GET /metrics or GET /status\n".getBytes());
                    return;
                }
                String path = exchange.getRequestURI().getPath();
                StatusPageAssets.Asset asset = assets.get(path);
                if (asset != null) {
                    send(exchange, 200, asset.type(), asset.body());
                    return;
                }
                switch (path) {
                    case "/metrics":
                        send(exchange, 200, "text/plain; version=0.0.4; charset=utf-8", metrics.scrape());
                        break;
                    case "/status":
                        StatusPage page;
                        try {
                            page = StatusPage.ofQuery(exchange.getRequestURI().getRawQuery());
                        } catch (IllegalArgumentException e) {
                            send(exchange, 400, "text/plain", (e.getMessage() + "\n").getBytes());
                            return;
                        }
                        send(exchange, 200, "application/json", status.apply(page));
                        break;
                    case "/ready":
                        String why = notReady.get();
                        send(exchange, why == null ? 200 : 503, "text/plain; charset=utf-8",
                                (why == null ? "ready\n" : "not ready: " + why + "\n").getBytes(StandardCharsets.UTF_8));
                        break;
                    default:
                        send(exchange, 404, "text/plain", "not found: try /, /metrics, /status or /ready\n".getBytes());
                        break;
                }
            } catch (RuntimeException e) {
                LOG.warn("HTTP {} failed: {}", exchange.getRequestURI(), e.toString());
            }
        });
        server.start();
        LOG.info("HTTP endpoint on http://{}:{}/ (the status page; /metrics, /status, /ready)", server.getAddress().getHostString(),
                server.getAddress().getPort());
        return new HttpEndpoint(server, executor);
    }

    private static void send(HttpExchange exchange, int code, String type, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", type);
        boolean head = "HEAD".equals(exchange.getRequestMethod());
        exchange.sendResponseHeaders(code, head ? -1 : body.length);
        if (!head) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    public InetSocketAddress address() {
        return server.getAddress();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
