package org.tapeq.it;

/**
 * Every case of {@link HostileInputTest} with the daemon's inotify off: it sees the directory only through its
 * periodic rescans, as when the pool writes from another host of a shared filesystem (GPFS, NFS). A hostile file
 * that stays in the directory must not stop the rescans from taking, cancelling and removing everything else.
 */
class HostileInputRescanOnlyTest extends HostileInputTest {

    @Override
    boolean inotify() {
        return false;
    }
}
