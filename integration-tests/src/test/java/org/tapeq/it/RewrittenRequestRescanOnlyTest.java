package org.tapeq.it;

/**
 * {@link RewrittenRequestTest} with the daemon's inotify off: it learns of removed and re-written request files
 * only from its rescans, as when the pool writes from another host of a shared filesystem.
 */
class RewrittenRequestRescanOnlyTest extends RewrittenRequestTest {

    @Override
    boolean inotify() {
        return false;
    }
}
