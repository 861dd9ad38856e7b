package org.tapeq.daemon.bridge;

import java.nio.file.Path;

/**
 * One request directory as the daemon serves it.
 *
 * @param name            short name for logs, metrics and status
 * @param path            the ENDIT-style base directory (in/, out/, request/, trash/)
 * @param group           fair-share group for its requests, or null to take the storage class's first part
 * @param stageBuffer     bytes of staged files in/ may hold
 * @param reserveBytes    free space kept on in/'s filesystem
 * @param rescanMillis    full rescan interval
 * @param watch           use the filesystem's watch service (inotify) as well
 * @param maxRequestBytes request files larger than this are refused
 * @param orphanMillis    a delivered file whose request is gone this long is removed
 * @param lockWaitMillis  how long {@link DirectoryBridge#start} waits for the directory's lock held by another
 *                        process (a deposed daemon letting go of it) before it fails
 */
public record BridgeSettings(String name, Path path, String group, long stageBuffer, long reserveBytes,
                             long rescanMillis, boolean watch, int maxRequestBytes, long orphanMillis,
                             long lockWaitMillis) {
}
