package org.tapeq.daemon.bridge;

import java.nio.file.Path;

/**
 * One request directory as the daemon serves it.
 *
 * @param index           position among the daemon's directories (0..255); part of every request id
 * @param name            short name for logs, metrics and status
 * @param path            the ENDIT-style base directory (in/, out/, request/, trash/)
 * @param group           fair-share group for its requests, or null to take the storage class's first part
 * @param stageBuffer     bytes of staged files in/ may hold
 * @param reserveBytes    free space kept on in/'s filesystem
 * @param rescanMillis    full rescan interval
 * @param watch           use the filesystem's watch service (inotify) as well
 * @param maxRequestBytes request files larger than this are refused
 * @param orphanMillis    a delivered file whose request is gone this long is removed
 */
public record BridgeSettings(int index, String name, Path path, String group, long stageBuffer, long reserveBytes,
                             long rescanMillis, boolean watch, int maxRequestBytes, long orphanMillis) {

    public static final int MAX_DIRECTORIES = 256;

    public BridgeSettings {
        if (index < 0 || index >= MAX_DIRECTORIES) {
            throw new IllegalArgumentException("at most " + MAX_DIRECTORIES + " directories");
        }
    }
}
