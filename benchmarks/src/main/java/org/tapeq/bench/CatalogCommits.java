package org.tapeq.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.tapeq.daemon.Daemon;

/**
 * How many aggregates a daemon recorded in its catalog and in how many commit tasks of its catalog writer (one
 * transaction each, or one per aggregate after a failed shared one): from the scheduler's counters and the
 * daemon's {@code /metrics}, both of which daemons before group commit have too.
 */
record CatalogCommits(long aggregates, long transactions) {

    private static final Pattern COMMIT_TASKS = Pattern.compile(
            "(?m)^tapeq_catalog_task_duration_seconds_count\\{kind=\"commit\"\\} (\\S+)$");

    static CatalogCommits of(Daemon daemon) throws Exception {
        long aggregates = daemon.scheduler().status(0).get().counters().getOrDefault("aggregates_written", 0L);
        URI uri = URI.create("http://127.0.0.1:" + daemon.httpAddress().getPort() + "/metrics");
        String body = HttpClient.newHttpClient().send(HttpRequest.newBuilder(uri).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        Matcher m = COMMIT_TASKS.matcher(body);
        if (!m.find()) {
            throw new IOException("no commit task count in the daemon's metrics at " + uri);
        }
        return new CatalogCommits(aggregates, (long) Double.parseDouble(m.group(1)));
    }

    /** What happened between {@code before} and this. */
    CatalogCommits since(CatalogCommits before) {
        return new CatalogCommits(aggregates - before.aggregates, transactions - before.transactions);
    }
}
