package org.tapeq.daemon.metrics;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import org.tapeq.scheduler.engine.drive.DriveObserver;

/**
 * Per-drive counters and the mount, unmount and locate latency histograms, fed by the scheduler's
 * {@link DriveObserver} on its event loop (each call is a lock-free count or observation). Every series of a
 * drive exists at zero from the engine's start.
 */
public final class DriveMetrics implements DriveObserver {

    private static final String DRIVE = "drive";

    private final Counter mounts;
    private final Counter bytes;
    private final Counter errors;
    private final Histogram mountSeconds;
    private final Histogram unmountSeconds;
    private final Histogram locateSeconds;
    /** Bytes each drive moved (read and written), for the status's per-drive rates. */
    private final Map<String, LongAdder> moved = new ConcurrentHashMap<>();

    public DriveMetrics(PrometheusRegistry registry) {
        mounts = Counter.builder().name("tapeq_drive_mounts_total")
                .help("Cartridges mounted in the drive").labelNames(DRIVE).withoutExemplars().register(registry);
        bytes = Counter.builder().name("tapeq_drive_bytes_total")
                .help("Bytes the drive read from tape (direction=read: files staged) or wrote (direction=write: "
                        + "aggregates committed)")
                .labelNames(DRIVE, "direction").withoutExemplars().register(registry);
        errors = Counter.builder().name("tapeq_drive_errors_total")
                .help("Faults counted against the drive (a drive error; enough in a row take it out of service)")
                .labelNames(DRIVE).withoutExemplars().register(registry);
        mountSeconds = histogram(registry, "tapeq_mount_duration_seconds",
                "Time to mount a cartridge: robot move, load and thread", 1, 2, 10); // 1 s .. 8.5 min
        unmountSeconds = histogram(registry, "tapeq_unmount_duration_seconds",
                "Time to unload a cartridge: rewind, unload and robot move back", 1, 2, 10);
        locateSeconds = histogram(registry, "tapeq_locate_duration_seconds",
                "Time to position the tape before a read or a read-back", 0.1, 2, 12); // 0.1 s .. 3.4 min
    }

    private static Histogram histogram(PrometheusRegistry registry, String name, String help, double start,
                                       double factor, int count) {
        return Histogram.builder().name(name).help(help).unit(Unit.SECONDS).labelNames(DRIVE).classicOnly()
                .classicExponentialUpperBounds(start, factor, count).withoutExemplars().register(registry);
    }

    @Override
    public void drive(String drive) {
        mounts.labelValues(drive);
        bytes.labelValues(drive, "read");
        bytes.labelValues(drive, "write");
        errors.labelValues(drive);
        mountSeconds.labelValues(drive);
        unmountSeconds.labelValues(drive);
        locateSeconds.labelValues(drive);
        moved.computeIfAbsent(drive, d -> new LongAdder());
    }

    @Override
    public void mounted(String drive, String barcode, long millis) {
        mounts.labelValues(drive).inc();
        mountSeconds.labelValues(drive).observe(millis / 1000.0);
    }

    @Override
    public void unmounted(String drive, String barcode, long millis, long heldMillis) {
        unmountSeconds.labelValues(drive).observe(millis / 1000.0);
    }

    @Override
    public void located(String drive, long millis) {
        locateSeconds.labelValues(drive).observe(millis / 1000.0);
    }

    @Override
    public void moved(String drive, boolean write, long n) {
        bytes.labelValues(drive, write ? "write" : "read").inc(n);
        moved.computeIfAbsent(drive, d -> new LongAdder()).add(n);
    }

    /** Bytes each drive has moved since start, read and written together; any thread. */
    public Map<String, Long> bytesByDrive() {
        Map<String, Long> out = new TreeMap<>();
        moved.forEach((d, n) -> out.put(d, n.sum()));
        return out;
    }

    @Override
    public void error(String drive) {
        errors.labelValues(drive).inc();
    }
}
