package org.tapeq.daemon.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * The status page's files, read once from the jar: {@code /} is the HTML page, {@code /page/status.js} fills it
 * from {@code GET /status} (the same JSON as {@code tapeq status --json}) and refreshes it, {@code
 * /page/status.css} styles it. A fixed set of names: no path from a request reaches the class path, and nothing
 * is fetched from another host.
 */
final class StatusPageAssets {

    /** One file with its content type. */
    record Asset(String type, byte[] body) {
    }

    private static final String ROOT = "page/";

    private final Map<String, Asset> byPath;

    private StatusPageAssets(Map<String, Asset> byPath) {
        this.byPath = byPath;
    }

    static StatusPageAssets load() {
        return new StatusPageAssets(Map.of(
                "/", asset("index.html", "text/html; charset=utf-8"),
                "/page/status.js", asset("status.js", "text/javascript; charset=utf-8"),
                "/page/status.css", asset("status.css", "text/css; charset=utf-8")));
    }

    /** The file served at {@code path}, or null. */
    Asset get(String path) {
        return byPath.get(path);
    }

    private static Asset asset(String name, String type) {
        try (InputStream in = StatusPageAssets.class.getResourceAsStream(ROOT + name)) {
            if (in == null) {
                throw new IllegalStateException("the status page's " + name + " is missing from the jar");
            }
            return new Asset(type, in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException("reading the status page's " + name, e);
        }
    }
}
