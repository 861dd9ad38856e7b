package org.tapeq.daemon.cli;

import java.io.PrintWriter;
import java.time.Instant;

import com.fasterxml.jackson.databind.JsonNode;
import org.tapeq.config.Units;

/** The media migrations of a status ({@code tapeq status}): a line each, its estimate, then what was not emptied. */
final class MigrationText {

    private MigrationText() {
    }

    /**
     * "A00041L8 (writing: 3/10 files, 1.2 GB/5.0 GB moved)": the cartridge a migration repacks now with its repack's
     * progress, from the status's repacks (the running one is always among them).
     */
    static String current(JsonNode scheduler, String barcode) {
        for (JsonNode r : scheduler.path("repacks")) {
            if (barcode.equals(r.path("source").asText()) && r.path("ended").asLong() == 0) {
                return String.format("%s (%s: %d/%d files, %s/%s moved)", barcode, r.path("state").asText(),
                        r.path("filesDone").asInt(), r.path("filesTotal").asInt(),
                        Units.roughSize(r.path("bytesDone").asDouble()), Units.roughSize(r.path("bytesTotal").asDouble()));
            }
        }
        return barcode;
    }

    /** ", repacking A (...), B (...)": every cartridge the migration repacks now (older daemons: its one current). */
    private static String repacking(JsonNode scheduler, JsonNode m) {
        StringBuilder s = new StringBuilder();
        if (m.path("moving").isArray()) {
            for (JsonNode b : m.path("moving")) {
                s.append(s.length() == 0 ? ", repacking " : ", ").append(current(scheduler, b.asText()));
            }
        } else if (m.path("current").isTextual()) {
            s.append(", repacking ").append(current(scheduler, m.path("current").asText()));
        }
        return s.toString();
    }

    static void print(JsonNode scheduler, PrintWriter out) {
        long now = scheduler.path("now").asLong();
        for (JsonNode m : scheduler.path("migrations")) {
            String family = m.path("family").isTextual() ? " family " + m.path("family").asText() : "";
            out.printf("migration %s %s -> %s%s %s: %d/%d cartridges emptied, %d not, %s/%s moved%s%n",
                    m.path("id").asText(), m.path("fromMedia").asText(), m.path("toMedia").asText(), family,
                    m.path("state").asText(), m.path("cartridgesDone").asInt(), m.path("cartridgesTotal").asInt(),
                    m.path("cartridgesFailed").asInt(), Units.roughSize(m.path("bytesDone").asDouble()),
                    Units.roughSize(m.path("bytesTotal").asDouble()),
                    repacking(scheduler, m));
            long eta = m.path("etaMillis").asLong();
            if ("running".equals(m.path("state").asText())) {
                out.printf("  measured %s/s; %s%n", Units.roughSize(m.path("rateBytesPerSecond").asDouble()),
                        eta > 0 ? "estimated end " + Instant.ofEpochMilli(eta) + " (in "
                                + StatusText.duration(eta - now) + ")" : "no estimate until bytes have moved");
            }
            for (JsonNode c : m.path("results")) {
                if (!c.path("emptied").asBoolean()) {
                    out.printf("  NOT EMPTIED %s (%s): %s%n", c.path("barcode").asText(), c.path("state").asText(),
                            c.path("why").asText());
                }
            }
        }
    }
}
