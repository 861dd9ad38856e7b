package org.tapeq.daemon;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** One scrape of a daemon's {@code /metrics}, parsed into series (name, labels, value). */
record Scrape(String text, List<Series> series) {

    record Series(String name, Map<String, String> labels, double value) {
    }

    private static final Pattern LINE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)\\})? (\\S+)$");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    static Scrape of(Daemon daemon) throws IOException, InterruptedException {
        URI uri = URI.create("http://127.0.0.1:" + daemon.httpAddress().getPort() + "/metrics");
        String body = HttpClient.newHttpClient().send(HttpRequest.newBuilder(uri).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        return parse(body);
    }

    static Scrape parse(String text) {
        List<Series> out = new ArrayList<>();
        for (String line : text.split("\n")) {
            Matcher m = LINE.matcher(line);
            if (line.startsWith("#") || !m.matches()) {
                continue;
            }
            Map<String, String> labels = new LinkedHashMap<>();
            if (m.group(3) != null) {
                Matcher l = LABEL.matcher(m.group(3));
                while (l.find()) {
                    labels.put(l.group(1), l.group(2));
                }
            }
            out.add(new Series(m.group(1), labels, Double.parseDouble(m.group(4))));
        }
        return new Scrape(text, out);
    }

    /** The series of this name whose labels include {@code labels} (pairs of name and value). */
    List<Series> find(String name, String... labels) {
        List<Series> out = new ArrayList<>();
        for (Series s : series) {
            if (!s.name().equals(name)) {
                continue;
            }
            boolean all = true;
            for (int i = 0; i < labels.length; i += 2) {
                all &= labels[i + 1].equals(s.labels().get(labels[i]));
            }
            if (all) {
                out.add(s);
            }
        }
        return out;
    }

    /** The one series' value; fails if there is none or more than one. */
    double value(String name, String... labels) {
        List<Series> found = find(name, labels);
        if (found.size() != 1) {
            throw new AssertionError(found.size() + " series " + name + " " + List.of(labels) + " in:\n" + text);
        }
        return found.get(0).value();
    }

    /** The sum over the series of this name with these labels (0 if none). */
    double sum(String name, String... labels) {
        return find(name, labels).stream().mapToDouble(Series::value).sum();
    }
}
