package org.tapeq.tools.demo;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.tapeq.config.Units;

/** What the demo measured, printed for a human and as one JSON object. */
final class DemoResult {

    /** One drive: bytes it moved, and its busy time in the library's (scaled) time. */
    record Drive(long bytes, long busyMillis) {
    }

    final int files;
    final long bytes;
    int flushed;
    int staged;
    int verified;
    int lost;
    int checksumErrors;
    long mounts;
    /** Cartridges holding data of the demo (the catalog's, not those merely labelled). */
    int cartridgesWritten;
    double flushSeconds;
    double stageSeconds;
    double speed;
    Map<String, Long> mountsPerCartridge = new LinkedHashMap<>();
    final Map<String, Drive> drives = new LinkedHashMap<>();
    final List<String> failures = new ArrayList<>();
    final List<String> violations = new ArrayList<>();

    DemoResult(int files, long bytes) {
        this.files = files;
        this.bytes = bytes;
    }

    void print(PrintStream out, long wallMillis, Path kept) {
        out.println();
        out.println("tapeq demo summary");
        out.printf("  files      %d (%s), flushed %d, staged %d, verified %d%n", files, Units.roughSize(bytes), flushed,
                staged, verified);
        out.printf("  lost       %d%n", lost);
        out.printf("  checksum errors %d%n", checksumErrors);
        out.printf("  cartridges %d written, %d mounts in all (labelling included)%n", cartridgesWritten, mounts);
        mountsPerCartridge.forEach((c, n) -> out.printf("    %s: %d mount(s)%n", c, n));
        out.printf("  drives (MB/s over the flush and stage wall time; the library runs x%s):%n", speed);
        drives.forEach((d, s) -> out.printf("    %s: %s moved, %.1f MB/s, busy %.0f s of tape time%n", d,
                Units.roughSize(s.bytes()), mbPerSecond(s), s.busyMillis() / 1e3));
        out.printf("  wall time  %.1f s (flush %.1f s, stage %.1f s)%n", wallMillis / 1e3, flushSeconds, stageSeconds);
        for (String f : failures.subList(0, Math.min(20, failures.size()))) {
            out.println("  FAILED " + f);
        }
        for (String v : violations) {
            out.println("  SPI VIOLATION " + v);
        }
        if (kept != null) {
            out.println("  work directory kept: " + kept);
        }
    }

    Map<String, Object> toJson(long wallMillis) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("files", files);
        m.put("bytes", bytes);
        m.put("flushed", flushed);
        m.put("staged", staged);
        m.put("verified", verified);
        m.put("lost", lost);
        m.put("checksum_errors", checksumErrors);
        m.put("mounts", mounts);
        m.put("cartridges", cartridgesWritten);
        m.put("mounts_per_cartridge", mountsPerCartridge);
        Map<String, Object> d = new LinkedHashMap<>();
        drives.forEach((k, v) -> d.put(k, Map.of("bytes", v.bytes(), "mb_per_s", Math.round(mbPerSecond(v) * 10) / 10.0,
                "busy_tape_s", v.busyMillis() / 1000)));
        m.put("drives", d);
        m.put("speed", speed);
        m.put("wall_s", wallMillis / 1e3);
        m.put("flush_s", flushSeconds);
        m.put("stage_s", stageSeconds);
        m.put("spi_violations", violations.size());
        return m;
    }

    private double mbPerSecond(Drive d) {
        double seconds = flushSeconds + stageSeconds;
        return seconds == 0 ? 0 : d.bytes() / 1e6 / seconds;
    }

}
