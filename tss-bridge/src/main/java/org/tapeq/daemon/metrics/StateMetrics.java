package org.tapeq.daemon.metrics;

import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.ToDoubleBiFunction;

import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Info;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.tapeq.scheduler.catalog.CartridgeState;
import org.tapeq.scheduler.engine.SchedulerLoad;
import org.tapeq.scheduler.engine.SchedulerStatus;
import org.tapeq.scheduler.engine.drive.DriveRunner;
import org.tapeq.scheduler.engine.lifecycle.RepackReport;
import org.tapeq.scheduler.engine.lifecycle.VerifyReport;

/**
 * Gauges an alert can be written on, read from snapshots the daemon takes at most once a second: drives by
 * state and each drive's state, cartridges by state, the work waiting per group and family (files, bytes,
 * queues, the oldest request's age), the oldest request per directory, whether the robot is paused, and the
 * build. Every state a drive or cartridge can have is a series, at zero while nothing is in it, and a group,
 * family or directory once seen stays a series (at zero when idle): an alert on {@code tapeq_drives{state="down"}}
 * or an age threshold needs the series to exist before the trouble.
 */
public final class StateMetrics {

    /** Drive states as {@code /status} names them. */
    public static final List<String> DRIVE_STATES = Arrays.stream(DriveRunner.State.values())
            .map(s -> s.name().toLowerCase(Locale.ROOT)).toList();
    /** Cartridge states as {@code /status} names them. */
    public static final List<String> CARTRIDGE_STATES = Arrays.stream(CartridgeState.values())
            .map(s -> s.name().toLowerCase(Locale.ROOT)).toList();

    private final Set<String> groups = ConcurrentHashMap.newKeySet();
    private final Set<String> families = ConcurrentHashMap.newKeySet();

    private StateMetrics(Collection<String> knownGroups) {
        groups.addAll(knownGroups);
    }

    /**
     * Registers the gauges. {@code status}, {@code load} and {@code bridges} are cached snapshots (empty when the
     * loop did not answer in time: the scrape then leaves those series out rather than report zeros);
     * {@code oldestByDirectory} gives, per directory, the wall-clock time its oldest request was first seen (0 if
     * none), on the clock of {@code wallMillis}.
     */
    public static void register(PrometheusRegistry registry, String version, Collection<String> knownGroups,
                                Supplier<Optional<SchedulerStatus>> status, Supplier<Optional<SchedulerLoad>> load,
                                Supplier<Map<String, Long>> oldestByDirectory, LongSupplier wallMillis) {
        StateMetrics m = new StateMetrics(knownGroups);
        Info.builder().name("tapeq_build") // exposed as tapeq_build_info{...} 1
                .help("The running daemon's version and Java runtime")
                .labelNames("version", "java_version")
                .register(registry).setLabelValues(version, System.getProperty("java.version"));
        GaugeWithCallback.builder().name("tapeq_drives")
                .help("Drives by state (every state is a series, 0 when no drive is in it)")
                .labelNames("state")
                .callback(cb -> status.get().ifPresent(s -> {
                    Map<String, Long> n = zeros(DRIVE_STATES);
                    s.drives().forEach(d -> n.merge(d.state(), 1L, Long::sum));
                    n.forEach((state, v) -> cb.call(v, state));
                }))
                .register(registry);
        GaugeWithCallback.builder().name("tapeq_drive_state")
                .help("Each drive's state: 1 for the state it is in, 0 for the others")
                .labelNames("drive", "state")
                .callback(cb -> status.get().ifPresent(s -> s.drives().forEach(d -> DRIVE_STATES.forEach(
                        state -> cb.call(state.equals(d.state()) ? 1 : 0, d.id(), state)))))
                .register(registry);
        GaugeWithCallback.builder().name("tapeq_drive_consecutive_errors")
                .help("Each drive's errors in a row (reset by a successful operation)")
                .labelNames("drive")
                .callback(cb -> status.get().ifPresent(s -> s.drives().forEach(d -> cb.call(d.errors(), d.id()))))
                .register(registry);
        GaugeWithCallback.builder().name("tapeq_drive_cleaning_due")
                .help("1 while the drive asks for a routine cleaning (TapeAlert 0x15) and stays in service; cleared"
                        + " by tapeq drive up")
                .labelNames("drive")
                .callback(cb -> status.get().ifPresent(s -> s.drives().forEach(
                        d -> cb.call(d.cleaning() != null ? 1 : 0, d.id()))))
                .register(registry);
        GaugeWithCallback.builder().name("tapeq_cartridges")
                .help("Cartridges in the catalog by state (every state is a series)")
                .labelNames("state")
                .callback(cb -> status.get().ifPresent(s -> {
                    Map<String, Long> n = zeros(CARTRIDGE_STATES);
                    s.cartridgesByState().forEach((state, v) -> n.merge(state, (long) v, Long::sum));
                    n.forEach((state, v) -> cb.call(v, state));
                }))
                .register(registry);
        GaugeWithCallback.builder().name("tapeq_cartridges_disabled")
                .help("Cartridges an administrator took out of use")
                .callback(cb -> status.get().ifPresent(s -> cb.call(
                        s.attention().stream().filter(SchedulerStatus.CartridgeStatus::disabled).count())))
                .register(registry);
        GaugeWithCallback.builder().name("tapeq_robot_paused")
                .help("1 while mounts are paused after consecutive robot errors")
                .callback(cb -> status.get().ifPresent(s -> cb.call(s.robot() != null ? 1 : 0)))
                .register(registry);
        GaugeWithCallback.builder().name("tapeq_background_tasks")
                .help("Background work (cartridge verification and repack): tasks running on a drive and waiting for one")
                .labelNames("state")
                .callback(cb -> status.get().ifPresent(s -> {
                    cb.call(s.background().running(), "running");
                    cb.call(s.background().waiting(), "waiting");
                }))
                .register(registry);
        GaugeWithCallback.builder().name("tapeq_verify_files")
                .help("Files read by the cartridge verifications of this run, by result (good, unchecked: read whole"
                        + " but the catalog's checksum is not an Adler-32 to compare with, bad, unreadable)")
                .labelNames("result")
                .callback(cb -> status.get().ifPresent(s -> {
                    long good = 0;
                    long unchecked = 0;
                    long bad = 0;
                    long unreadable = 0;
                    for (VerifyReport v : s.verifications()) {
                        good += v.filesGood();
                        unchecked += v.filesUnchecked();
                        bad += v.filesBad();
                        unreadable += v.filesUnreadable();
                    }
                    cb.call(good, "good");
                    cb.call(unchecked, "unchecked");
                    cb.call(bad, "bad");
                    cb.call(unreadable, "unreadable");
                }))
                .register(registry);
        GaugeWithCallback.builder().name("tapeq_verify_overdue_cartridges")
                .help("Cartridges the periodic verification verifies in turn that were never verified or not within a"
                        + " round of all of them at its rate (scheduler.verifyPerWeek), as of its last look; 0 when off")
                .callback(cb -> status.get().ifPresent(s -> cb.call(s.verifyPolicy().overdue())))
                .register(registry);
        GaugeWithCallback.builder().name("tapeq_verify_policy_last_look_timestamp_seconds")
                .help("When the periodic verification last looked at what is due (Unix time); 0 when off")
                .callback(cb -> status.get().ifPresent(s -> cb.call(s.verifyPolicy().lastLook() / 1000.0)))
                .register(registry);
        GaugeWithCallback.builder().name("tapeq_repack_files")
                .help("Files of the cartridge repacks of this run (and those resumed at start): total to move, moved"
                        + " (committed on their new cartridge), failed (left on the source), spooled (read, not yet"
                        + " written)")
                .labelNames("state")
                .callback(cb -> status.get().ifPresent(s -> {
                    long[] sums = new long[4];
                    for (RepackReport r : s.repacks()) {
                        sums[0] += r.filesTotal();
                        sums[1] += r.filesDone();
                        sums[2] += r.filesFailed();
                        sums[3] += r.spooledFiles();
                    }
                    cb.call(sums[0], "total");
                    cb.call(sums[1], "moved");
                    cb.call(sums[2], "failed");
                    cb.call(sums[3], "spooled");
                }))
                .register(registry);
        GaugeWithCallback.builder().name("tapeq_repack_bytes")
                .help("Bytes of the cartridge repacks of this run: total to move, moved, spooled")
                .labelNames("state")
                .callback(cb -> status.get().ifPresent(s -> {
                    long[] sums = new long[3];
                    for (RepackReport r : s.repacks()) {
                        sums[0] += r.bytesTotal();
                        sums[1] += r.bytesDone();
                        sums[2] += r.spooledBytes();
                    }
                    cb.call(sums[0], "total");
                    cb.call(sums[1], "moved");
                    cb.call(sums[2], "spooled");
                }))
                .register(registry);
        MigrationMetrics.register(registry, status);
        GaugeWithCallback.builder().name("tapeq_reclaim_candidates")
                .help("Cartridges the automatic reclamation policy found to repack at its last look (sparse FULL ones"
                        + " and SUSPECT ones with live files)")
                .callback(cb -> status.get().ifPresent(s -> cb.call(s.reclaim().candidates())))
                .register(registry);
        GaugeWithCallback.builder().name("tapeq_reclaim_queued")
                .help("Repacks the automatic reclamation policy started that have not ended")
                .callback(cb -> status.get().ifPresent(s -> cb.call(s.reclaim().queued())))
                .register(registry);
        GaugeWithCallback.builder().name("tapeq_reclaim_paused")
                .help("1 while an operator has paused the automatic reclamation policy (tapeq reclaim pause)")
                .callback(cb -> status.get().ifPresent(s -> cb.call("paused".equals(s.reclaim().state()) ? 1 : 0)))
                .register(registry);
        m.registerLoad(registry, load);
        GaugeWithCallback.builder().name("tapeq_directory_oldest_request_age_seconds")
                .help("Age of the oldest request a directory (pool) still serves, from when the daemon first saw "
                        + "it; 0 when none")
                .labelNames("directory")
                .callback(cb -> {
                    long now = wallMillis.getAsLong();
                    oldestByDirectory.get().forEach((directory, oldest) -> cb.call(
                            oldest == 0 ? 0 : Math.max(0, now - oldest) / 1000.0, directory));
                })
                .register(registry);
    }

    private void registerLoad(PrometheusRegistry registry, Supplier<Optional<SchedulerLoad>> load) {
        Function<SchedulerLoad, Map<String, SchedulerLoad.Load>> byGroup = SchedulerLoad::groups;
        Function<SchedulerLoad, Map<String, SchedulerLoad.Load>> byFamily = SchedulerLoad::families;
        loadGauge(registry, load, "tapeq_group_queued_files", "Files waiting per fair-share group (reads and "
                + "writes not yet done)", "group", groups, byGroup, (l, v) -> v.files());
        loadGauge(registry, load, "tapeq_group_queued_bytes", "Bytes waiting per fair-share group", "group", groups,
                byGroup, (l, v) -> v.bytes());
        loadGauge(registry, load, "tapeq_group_queues", "Queues with work per fair-share group (a cartridge's "
                + "reads, a family's writes)", "group", groups, byGroup, (l, v) -> v.queues());
        loadGauge(registry, load, "tapeq_group_oldest_request_age_seconds", "Age of the oldest waiting request per "
                + "fair-share group (scheduler time); 0 when none waits", "group", groups, byGroup,
                (l, v) -> v.oldestAgeSeconds(l.now()));
        loadGauge(registry, load, "tapeq_family_queued_files", "Files waiting to be written per tape family",
                "family", families, byFamily, (l, v) -> v.files());
        loadGauge(registry, load, "tapeq_family_oldest_request_age_seconds", "Age of the oldest file waiting to be "
                + "written per tape family; 0 when none waits", "family", families, byFamily,
                (l, v) -> v.oldestAgeSeconds(l.now()));
    }

    /** One gauge per group or family: {@code value} of each name's load, every name once seen included. */
    private static void loadGauge(PrometheusRegistry registry, Supplier<Optional<SchedulerLoad>> load, String name,
                                  String help, String label, Set<String> seen,
                                  Function<SchedulerLoad, Map<String, SchedulerLoad.Load>> part,
                                  ToDoubleBiFunction<SchedulerLoad, SchedulerLoad.Load> value) {
        GaugeWithCallback.builder().name(name).help(help).labelNames(label)
                .callback(cb -> load.get().ifPresent(l -> perName(seen, part.apply(l)).forEach(
                        (n, v) -> cb.call(value.applyAsDouble(l, v), n))))
                .register(registry);
    }

    /** Every name seen so far, with its load or none: a name once seen stays a series. */
    private static Map<String, SchedulerLoad.Load> perName(Set<String> seen, Map<String, SchedulerLoad.Load> now) {
        seen.addAll(now.keySet());
        Map<String, SchedulerLoad.Load> out = new TreeMap<>();
        for (String name : seen) {
            out.put(name, now.getOrDefault(name, SchedulerLoad.Load.NONE));
        }
        return out;
    }

    private static Map<String, Long> zeros(List<String> names) {
        Map<String, Long> m = new TreeMap<>();
        names.forEach(n -> m.put(n, 0L));
        return m;
    }
}
