package org.tapeq.daemon.bridge;

import org.tapeq.protocol.HeldRequestDirectory;

/**
 * Whether a bridge still serves its directory: the directories held open at start ({@link HeldRequestDirectory})
 * and, once one of their paths names something else, why the bridge stopped. The check runs on the bridge's
 * thread, which alone sets the reason; the drive threads opening stage targets only read it (hence volatile).
 */
final class DirectoryGuard {

    final HeldRequestDirectory held;
    private volatile String stopped;

    DirectoryGuard(HeldRequestDirectory held) {
        this.held = held;
    }

    /**
     * On the bridge's thread: null while every path still names the directory opened at start; otherwise why the
     * bridge stopped serving it (found now or earlier; it never serves it again until restarted).
     *
     * @return the reason, or null
     */
    String check() {
        if (stopped == null) {
            stopped = held.changed();
        }
        return stopped;
    }

    /** Why the bridge stopped serving the directory, or null; from any thread, no file access. */
    String stopped() {
        return stopped;
    }
}
