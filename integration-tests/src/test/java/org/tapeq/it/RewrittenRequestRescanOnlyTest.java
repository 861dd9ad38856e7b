package org.tapeq.it;

import org.junit.jupiter.api.Tag;

/**
 * {@link RewrittenRequestTest} with the daemon's inotify off: it learns of removed and re-written request files
 * only from its rescans, as when the pool writes from another host of a shared filesystem. Tagged slow (every step
 * waits for a rescan): the fast loop runs the inotify cases only.
 */
@Tag("slow")
class RewrittenRequestRescanOnlyTest extends RewrittenRequestTest {

    @Override
    boolean inotify() {
        return false;
    }
}
