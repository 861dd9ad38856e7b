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

    /** One host of the three-host demo: its loopback address and what runs there. */
    record Host(String address, List<String> runs) {
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
    /** The three-host demo's hosts by name; empty on one host. */
    final Map<String, Host> hosts = new LinkedHashMap<>();
    /** Rises of the site lease's epoch seen during the campaign (standby takeovers). */
    int failovers;
    /** Work done twice: a request completed twice in a pool, a file recorded twice, tape files written over each other. */
    long duplicated;
    /** Mounts asked of a cartridge another drive held, counted where the robot is. */
    long doubleMounts;
    /** Mounts asked of a cartridge another drive held or was being loaded with (the robot refuses them). */
    long doubleMountRequests;
    /** Tape files the library appended per cartridge (labels left out), as the library process counted them. */
    Map<String, Long> filesWrittenByLibrary = Map.of();
    /** Tape files the library appended that the catalog does not record, in all and per cartridge. */
    long unrecordedTapeFiles;
    final Map<String, Long> unrecordedByCartridge = new LinkedHashMap<>();
    double leaseTakeoverSeconds;
    /** From the SIGKILL of the active scheduler until the standby's engine serves. */
    double failoverSeconds;
    int moverKills;
    /** What a drive of m1 was doing when m1 was killed (a mount or a write), or null when it was not killed. */
    String moverKillDuring;
    int moverKillAnswered;
    int schedulerKillAnswered;

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
        if (!hosts.isEmpty()) {
            hosts.forEach((h, v) -> out.printf("  %s %s: %s%n", h, v.address(), String.join(", ", v.runs())));
            out.printf("  mover m1 killed %d time(s) during the flush (%d flushes answered then, during %s), started "
                    + "again%n", moverKills, moverKillAnswered, moverKillDuring);
            out.printf("  failovers  %d: the active scheduler killed with %d stages answered; the standby held the "
                    + "lease %.1f s and served %.1f s after the kill%n", failovers, schedulerKillAnswered,
                    leaseTakeoverSeconds, failoverSeconds);
            out.printf("  work done twice %d, double mounts %d (asked %d)%n", duplicated, doubleMounts,
                    doubleMountRequests);
            out.printf("  tape files written but not recorded (their writer killed) %d %s%n", unrecordedTapeFiles,
                    unrecordedByCartridge);
        }
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
        if (!hosts.isEmpty()) {
            Map<String, Object> h = new LinkedHashMap<>();
            hosts.forEach((k, v) -> h.put(k, Map.of("address", v.address(), "runs", v.runs())));
            m.put("hosts", h);
            m.put("failovers", failovers);
            m.put("failover_s", Math.round(failoverSeconds * 10) / 10.0);
            m.put("lease_takeover_s", Math.round(leaseTakeoverSeconds * 10) / 10.0);
            m.put("mover_kills", moverKills);
            m.put("mover_kill_during", moverKillDuring);
            m.put("failures", List.copyOf(failures.subList(0, Math.min(20, failures.size()))));
            m.put("duplicates", duplicated);
            m.put("double_mounts", doubleMounts);
            m.put("double_mount_requests", doubleMountRequests);
            m.put("unrecorded_tape_files", unrecordedByCartridge);
        }
        return m;
    }

    private double mbPerSecond(Drive d) {
        double seconds = flushSeconds + stageSeconds;
        return seconds == 0 ? 0 : d.bytes() / 1e6 / seconds;
    }

}
