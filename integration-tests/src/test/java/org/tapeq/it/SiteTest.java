package org.tapeq.it;

import java.nio.file.Path;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.daemon.Daemon;

/**
 * A test against one site: the daemon started with its cartridges labelled and the pool started before each test,
 * both closed after it with a check that the pool saw no SPI violation. Subclasses that override
 * {@link #inotify()} run the same cases with rescans only, as on a shared filesystem.
 */
abstract class SiteTest {

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path tmp;

    Site site;
    Daemon daemon;
    Pool pool;

    /** Whether the daemon watches with inotify. */
    boolean inotify() {
        return true;
    }

    @BeforeEach
    void start() throws Exception {
        site = new Site(tmp.resolve("site")).inotify(inotify());
        daemon = site.startDaemon();
        Site.label(daemon);
        pool = Pool.start(site);
    }

    @AfterEach
    void stop() {
        Pool.closeAndCheck(pool, daemon);
    }
}
