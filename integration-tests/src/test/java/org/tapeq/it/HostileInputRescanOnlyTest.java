package org.tapeq.it;

import org.junit.jupiter.api.Tag;

/**
 * Every case of {@link HostileInputTest} with the daemon's inotify off: it sees the directory only through its
 * periodic rescans, as when the pool writes from another host of a shared filesystem (GPFS, NFS). A hostile file
 * that stays in the directory must not stop the rescans from taking, cancelling and removing everything else.
 * Tagged slow (every step waits for a rescan): the fast loop runs the inotify cases only.
 */
@Tag("slow")
class HostileInputRescanOnlyTest extends HostileInputTest {

    @Override
    boolean inotify() {
        return false;
    }
}
