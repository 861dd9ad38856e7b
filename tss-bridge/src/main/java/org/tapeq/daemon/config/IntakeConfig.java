package org.tapeq.daemon.config;

import java.util.List;

import org.tapeq.config.ConfigNode;
import org.tapeq.config.Units;
import org.tapeq.protocol.ProtocolFiles;

/**
 * How requests are taken from the request directories ({@code intake:}).
 *
 * @param rescanIntervalMillis time between full rescans (for changes no watch event reports, e.g. on NFS or GPFS)
 * @param inotify              whether to use the filesystem's watch service where it works
 * @param maxRequestBytes      request files larger than this are refused
 */
public record IntakeConfig(long rescanIntervalMillis, boolean inotify, int maxRequestBytes) {

    static final String RESCAN_INTERVAL = "rescanInterval";
    static final String INOTIFY = "inotify";
    static final String MAX_REQUEST_BYTES = "maxRequestBytes";
    static final List<String> KEYS = List.of(RESCAN_INTERVAL, INOTIFY, MAX_REQUEST_BYTES);

    public static final long DEFAULT_RESCAN_INTERVAL_MILLIS = 60_000;
    static final long MIN_RESCAN_INTERVAL_MILLIS = 1000;
    public static final boolean DEFAULT_INOTIFY = true;
    public static final int DEFAULT_MAX_REQUEST_BYTES = ProtocolFiles.MAX_PROTOCOL_FILE_SIZE;
    static final int MIN_MAX_REQUEST_BYTES = 1 << 10;
    static final int MAX_MAX_REQUEST_BYTES = 1 << 20;

    static IntakeConfig parse(ConfigNode intake) {
        intake.allow(KEYS);
        long rescan = intake.duration(RESCAN_INTERVAL, DEFAULT_RESCAN_INTERVAL_MILLIS);
        if (rescan < MIN_RESCAN_INTERVAL_MILLIS) {
            throw intake.error(RESCAN_INTERVAL, "must be at least " + Units.formatDuration(MIN_RESCAN_INTERVAL_MILLIS)
                    + ", not " + Units.formatDuration(rescan));
        }
        long maxRequest = intake.size(MAX_REQUEST_BYTES, DEFAULT_MAX_REQUEST_BYTES);
        if (maxRequest < MIN_MAX_REQUEST_BYTES || maxRequest > MAX_MAX_REQUEST_BYTES) {
            throw intake.error(MAX_REQUEST_BYTES, "must be from " + Units.formatSize(MIN_MAX_REQUEST_BYTES) + " to "
                    + Units.formatSize(MAX_MAX_REQUEST_BYTES) + ", not " + Units.formatSize(maxRequest));
        }
        return new IntakeConfig(rescan, intake.bool(INOTIFY, DEFAULT_INOTIFY), (int) maxRequest);
    }

    void describe(YamlText out) {
        out.put(0, DaemonConfig.INTAKE, null)
                .put(1, RESCAN_INTERVAL, Units.formatDuration(rescanIntervalMillis))
                .put(1, INOTIFY, inotify)
                .put(1, MAX_REQUEST_BYTES, Units.formatSize(maxRequestBytes));
    }
}
