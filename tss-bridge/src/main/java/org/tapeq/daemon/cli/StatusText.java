package org.tapeq.daemon.cli;

import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import org.tapeq.config.Units;

/** Prints the daemon's status (as JSON from the control socket) for a human at a terminal. */
final class StatusText {

    private StatusText() {
    }

    static void print(JsonNode st, PrintWriter out) {
        long now = st.path("nowMillis").asLong();
        out.printf("tapeq %s, up %s%n", st.path("version").asText(),
                duration(now - st.path("startedMillis").asLong()));
        JsonNode rates = st.path("rates");
        if (rates.size() > 0) {
            out.printf("rates (last minute): staged %.1f files/s %s/s read, flushed %.1f files/s %s/s written%n",
                    rates.path("files_staged").asDouble(), Units.roughSize(rates.path("bytes_read").asDouble()),
                    rates.path("files_flushed").asDouble(), Units.roughSize(rates.path("bytes_written").asDouble()));
        }
        JsonNode site = st.path("site");
        if (site.has("role")) {
            out.printf("site %s: %s%s%n", site.path("name").asText(), site.path("role").asText(),
                    site.hasNonNull("waiting") ? " (" + site.path("waiting").asText() + ")"
                            : site.path("epoch").asLong() > 0 ? ", lease epoch " + site.path("epoch").asLong() : "");
        }
        JsonNode catalog = st.path("catalog");
        if (catalog.has("reachable")) {
            if (catalog.path("reachable").asBoolean()) {
                out.println("catalog: reachable");
            } else {
                long since = catalog.path("unreachableSince").asLong();
                out.printf("catalog: UNREACHABLE%s: %s%n  no writes, mounts for writing or admin tasks start; catalog "
                        + "work waits and is retried until it answers%n", since > 0 ? " for " + duration(now - since)
                        + " (since " + Instant.ofEpochMilli(since) + ")" : "", catalog.path("reason").asText());
            }
        }
        for (JsonNode d : st.path("directories")) {
            out.printf("%ndirectory %s (%s)%n", d.path("name").asText(), d.path("path").asText());
            if (d.hasNonNull("stopped")) {
                out.printf("  STOPPED: not served any more: %s%n", d.path("stopped").asText());
            }
            out.printf("  requests: %s; removing %d%n", counts(d.path("requests"), "none"), d.path("removing").asInt());
            long oldest = d.path("oldestMillis").asLong();
            if (oldest > 0) {
                out.printf("  oldest waiting request: %s ago (%s)%n", duration(now - oldest),
                        d.path("oldest").asText(Instant.ofEpochMilli(oldest).toString()));
            }
            out.printf("  stage buffer: %s of %s reserved, %d reads refused (each retry counts)%n",
                    Units.roughSize(d.path("bufferReserved").asDouble()),
                    Units.roughSize(d.path("bufferCapacity").asDouble()), d.path("bufferRefusals").asLong());
            if (d.path("rejected").asLong() > 0) {
                out.printf("  refused request files: %d%n", d.path("rejected").asLong());
            }
            if (d.path("parkedCount").asInt() > 0) {
                out.printf("  parked flushes: %d%s%n", d.path("parkedCount").asInt(), shown(st, d.path("parked").size(),
                        d.path("parkedCount").asInt()));
            }
            for (JsonNode p : d.path("parked")) {
                out.printf("  PARKED %s: %s%n", p.path("pnfsid").asText(), p.path("reason").asText());
            }
        }
        JsonNode s = st.path("scheduler");
        if (s.isMissingNode() || s.isNull()) {
            out.println("\nscheduler: no answer");
            return;
        }
        out.printf("%nscheduler (policy %s): %d queue(s) with work, %d ready, %d waiting%n",
                s.path("policy").asText(), s.path("queueCount").asInt(), s.path("readyQueues").asInt(),
                s.path("waitingQueues").asInt());
        if (!s.path("robot").isNull() && !s.path("robot").isMissingNode()) {
            out.printf("  robot: %s%n", s.path("robot").asText());
        }
        out.println("\ndrives:");
        for (JsonNode d : s.path("drives")) {
            String activity = d.path("activity").asText();
            String reason = d.path("reason").isTextual() ? d.path("reason").asText() : "";
            out.printf("  %-10s %-8s %-10s %s%s%n", d.path("id").asText(), d.path("state").asText(),
                    d.path("cartridge").isTextual() ? d.path("cartridge").asText() : "-", activity,
                    reason.isEmpty() || activity.contains(reason) ? "" : " (" + reason + ")"); // each reason once
            if (d.path("cleaning").isTextual()) {
                out.printf("  %-10s cleaning due: %s%n", "", d.path("cleaning").asText());
            }
        }
        out.printf("%nqueues:%s%n", shown(st, s.path("queues").size(), s.path("queueCount").asInt()));
        out.printf("  %-18s %-8s %10s %12s %-10s %s%n", "queue", "group", "files", "bytes", "state", "reason");
        for (JsonNode q : s.path("queues")) {
            out.printf("  %-18s %-8s %10d %12s %-10s %s%n", q.path("name").asText(), q.path("group").asText(),
                    q.path("files").asLong(), Units.roughSize(q.path("bytes").asDouble()), q.path("state").asText(),
                    q.path("reason").isNull() ? "" : q.path("reason").asText());
        }
        out.printf("%ncartridges: %s%n", counts(s.path("cartridgesByState"), "none"));
        for (JsonNode c : s.path("attention")) {
            out.printf("  %s %s%s: %s%n", c.path("barcode").asText(), c.path("state").asText(),
                    c.path("disabled").asBoolean() ? " (disabled)" : "", c.path("reason").asText());
        }
        printVerifications(s, out);
        printUpkeep(s, out);
        MigrationText.print(s, out);
        printReclaim(s, out);
        out.printf("counters: %s%n", counts(s.path("counters"), "all 0"));
    }

    /**
     * "3 queued, 1 delivered": the non-zero entries of a JSON object of counts (a {@code bytes_} count as a size,
     * "3.0 MB bytes_written"), or {@code none}.
     */
    private static String counts(JsonNode map, String none) {
        StringBuilder sb = new StringBuilder();
        map.fields().forEachRemaining(e -> {
            long n = e.getValue().asLong();
            if (n != 0) {
                sb.append(sb.length() == 0 ? "" : ", ")
                        .append(e.getKey().startsWith("bytes_") ? Units.roughSize(n) : Long.toString(n))
                        .append(' ').append(e.getKey());
            }
        });
        return sb.length() == 0 ? none : sb.toString();
    }

    /** Background work and the cartridge verifications and repacks of this run, a line each. */
    private static void printVerifications(JsonNode s, PrintWriter out) {
        JsonNode bg = s.path("background");
        if (bg.isMissingNode() || (s.path("verifications").isEmpty() && s.path("repacks").isEmpty()
                && bg.path("waiting").asInt() == 0)) {
            return;
        }
        int forTarget = 0;
        for (JsonNode r : s.path("repacks")) {
            forTarget += "waiting for a target".equals(r.path("state").asText()) ? 1 : 0;
        }
        out.printf("background: %d running (of at most %d drives), %d waiting for a drive%s%n",
                bg.path("running").asInt(), bg.path("maxDrives").asInt(), bg.path("waiting").asInt(),
                forTarget == 0 ? "" : ", " + forTarget + " repacks waiting for a target");
        for (JsonNode v : s.path("verifications")) {
            // unchecked: read whole, but the catalog's checksum is not an Adler-32 to compare with - not good
            out.printf("  verify %s %-7s %d/%d aggregates%s: %d good, %d unchecked, %d bad, %d unreadable%s%n",
                    v.path("barcode").asText(), v.path("state").asText(), v.path("aggregatesDone").asInt(),
                    v.path("aggregatesTotal").asInt(), v.path("sampled").asBoolean() ? " (sample)" : "",
                    v.path("filesGood").asInt(), v.path("filesUnchecked").asInt(), v.path("filesBad").asInt(),
                    v.path("filesUnreadable").asInt(),
                    v.path("error").isNull() || v.path("error").isMissingNode() ? ""
                            : " - " + v.path("error").asText());
            for (JsonNode f : v.path("bad")) {
                out.printf("    BAD %s (tape file %d): %s%n", f.path("pnfsid").asText(), f.path("tapeFile").asInt(),
                        f.path("reason").asText());
            }
            for (JsonNode f : v.path("unreadable")) {
                out.printf("    UNREADABLE %s (tape file %d): %s%n", f.path("pnfsid").asText(),
                        f.path("tapeFile").asInt(), f.path("reason").asText());
            }
            int unlisted = v.path("filesBad").asInt() + v.path("filesUnreadable").asInt() - v.path("bad").size()
                    - v.path("unreadable").size();
            if (unlisted > 0) {
                out.printf("    and %d more: in the log (WARN), and in the catalog (verification_findings) once it "
                        + "ended%n", unlisted);
            }
        }
        printRepacks(s, out);
    }

    /** The periodic verification policy (when on: what is due, what is overdue) and the relabels of this run. */
    private static void printUpkeep(JsonNode s, PrintWriter out) {
        JsonNode p = s.path("verifyPolicy");
        if (p.path("perWeek").asInt() > 0) {
            List<String> due = new ArrayList<>();
            p.path("nextDue").forEach(b -> due.add(b.asText()));
            out.printf("periodic verification: %d a week%s, %d cartridges in turn, %d overdue; next look %s; next due:"
                    + " %s%s%n", p.path("perWeek").asInt(), p.path("sample").asInt() > 0 ? " (sample of "
                    + p.path("sample").asInt() + " aggregates)" : "", p.path("eligible").asInt(),
                    p.path("overdue").asInt(), Instant.ofEpochMilli(p.path("nextLook").asLong()),
                    due.isEmpty() ? "none" : String.join(" ", due), p.path("lastStarted").isTextual()
                            ? "; last started " + p.path("lastStarted").asText() + " at "
                            + Instant.ofEpochMilli(p.path("lastStartedAt").asLong()) : "");
        }
        for (JsonNode r : s.path("relabels")) {
            out.printf("  relabel %s for %s %s%s%n", r.path("barcode").asText(), r.path("family").asText(),
                    r.path("state").asText(), r.path("error").isTextual() ? " - " + r.path("error").asText() : "");
        }
    }

    /** The automatic reclamation policy, when it is configured on or paused ({@code tapeq reclaim status}). */
    private static void printReclaim(JsonNode s, PrintWriter out) {
        JsonNode r = s.path("reclaim");
        if (!r.isMissingNode() && !"off".equals(r.path("state").asText())) {
            ReclaimCommands.printStatus(r, out);
        }
    }

    /** The cartridge repacks of this run, a line each, then their failed files. */
    private static void printRepacks(JsonNode s, PrintWriter out) {
        long now = s.path("now").asLong();
        for (JsonNode r : s.path("repacks")) {
            String target = r.path("target").isTextual() ? " writing to " + r.path("target").asText() : "";
            long started = r.path("started").asLong();
            long millis = (r.path("ended").asLong() > 0 ? r.path("ended").asLong() : now) - started;
            long bytes = r.path("bytesDone").asLong();
            String rate = bytes > 0 && millis > 0 && started > 0
                    ? ", " + Units.roughSize(bytes * 1000.0 / millis) + "/s since asked for" : "";
            out.printf("  repack %s -> %s %-9s %d/%d files, %s/%s moved%s, %d failed, %d in the spool%s%s%s%n",
                    r.path("source").asText(), r.path("targetFamily").asText(), r.path("state").asText(),
                    r.path("filesDone").asInt(), r.path("filesTotal").asInt(), Units.roughSize(bytes),
                    Units.roughSize(r.path("bytesTotal").asDouble()), rate, r.path("filesFailed").asInt(),
                    r.path("spooledFiles").asInt(), target, r.path("emptied").asBoolean() ? ", source EMPTY" : "",
                    r.path("error").isTextual() ? " - " + r.path("error").asText() : "");
            for (JsonNode f : r.path("failed")) {
                out.printf("    STAYS %s (tape file %d): %s%n", f.path("pnfsid").asText(), f.path("tapeFile").asInt(),
                        f.path("reason").asText());
            }
            int unlisted = r.path("filesFailed").asInt() - r.path("failed").size();
            if (unlisted > 0) {
                out.printf("    and %d more: in the log (WARN)%n", unlisted);
            }
        }
    }

    /** " (12 shown from number 41 of 100; --offset, --limit)" when a paged list shows less than all, else "". */
    private static String shown(JsonNode st, int shown, int total) {
        int offset = st.path("offset").asInt();
        if (shown >= total && offset == 0) {
            return "";
        }
        return String.format(" (%d shown from number %d of %d; --offset, --limit)", shown, offset + 1, total);
    }

    static void printCartridges(JsonNode list, PrintWriter out) {
        // files: the users' files on the cartridge; tape files: what was written (an aggregate is one)
        // reclaim: bytes of removed or moved files, which a repack frees
        out.printf("%-10s %-6s %-10s %-10s %9s %10s %10s %10s %10s %8s %s%n", "barcode", "media", "family", "state",
                "files", "tapefiles", "used", "reclaim", "free", "mounts", "note");
        for (JsonNode c : list) {
            long cap = c.path("capacityBytes").asLong();
            long used = c.path("usedBytes").asLong();
            out.printf("%-10s %-6s %-10s %-10s %9d %10d %10s %10s %10s %8d %s%n", c.path("barcode").asText(),
                    c.path("mediaType").asText(), c.path("family").isNull() ? "-" : c.path("family").asText(),
                    c.path("state").asText(), c.path("files").asLong(), c.path("tapeFiles").asInt(),
                    Units.roughSize(used), Units.roughSize(c.path("reclaimableBytes").asDouble()),
                    Units.roughSize(Math.max(0, cap - used)),
                    c.path("mountCount").asLong(), (c.path("disabled").asBoolean() ? "disabled " : "")
                            + (c.path("reason").isNull() ? "" : c.path("reason").asText()));
        }
    }


    static String duration(long millis) {
        long s = Math.max(0, millis) / 1000;
        if (s < 120) {
            return s + " s";
        }
        if (s < 7200) {
            return (s / 60) + " min";
        }
        return String.format("%.1f h", s / 3600.0);
    }
}
