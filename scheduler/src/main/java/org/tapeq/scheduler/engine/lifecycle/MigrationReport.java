package org.tapeq.scheduler.engine.lifecycle;

import java.util.List;

/**
 * A media migration's progress and, once it ended, its result ({@code tapeq migrate}).
 *
 * @param id                its name
 * @param state             {@code running}, {@code done} (every cartridge tried; see {@code cartridgesFailed}),
 *                          {@code cancelled} or {@code failed} (see {@code error})
 * @param family            the only family migrated, or null for all
 * @param cartridgesTotal   cartridges to empty, {@code cartridgesDone} emptied, {@code cartridgesFailed} left with
 *                          live files (their repack failed or left files behind; each says why in {@code results})
 * @param current           the first of {@code moving}, or null
 * @param moving            the cartridges being repacked for it now (several at once, within
 *                          {@code scheduler.migrationRepacks} and {@code scheduler.maxBackgroundDrives}), oldest first
 * @param bytesTotal        live bytes of the cartridges when it was asked for, {@code bytesDone} moved since
 * @param rateBytesPerSecond bytes moved per second since this run of it began, as measured (0 until a byte moved)
 * @param etaMillis         loop time it is expected to end at from that measured rate, or -1 while unknown
 * @param results           each cartridge tried so far, in order
 */
public record MigrationReport(String id, String fromMedia, String toMedia, String family, String state,
                              int cartridgesTotal, int cartridgesDone, int cartridgesFailed, String current,
                              List<String> moving,
                              long bytesTotal, long bytesDone, long rateBytesPerSecond, long etaMillis,
                              long started, long ended, List<CartridgeResult> results, String error) {

    /**
     * One cartridge of a migration: its repack's end state ({@code done}, {@code failed}, {@code cancelled}),
     * whether it was emptied, its bytes moved, and why it was not emptied (null when it was).
     */
    public record CartridgeResult(String barcode, String state, boolean emptied, long bytesMoved, String why) {
    }

    /** Bytes still to move. */
    public long bytesLeft() {
        return Math.max(0, bytesTotal - bytesDone);
    }

    /** Whether it ended. */
    public boolean hasEnded() {
        return ended > 0 || !"running".equals(state);
    }
}
