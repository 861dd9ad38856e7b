package org.tapeq.scheduler.catalog;

/**
 * Who may write a site's catalog: the one row per site that a daemon (later: the active scheduler) takes at
 * start and renews while it runs. The epoch grows by one at every takeover; each catalog write checks that
 * its writer still holds the epoch it took (fencing), so a deposed holder cannot record or acknowledge
 * anything. Times are wall-clock milliseconds.
 *
 * @param site       the site's name (configuration key {@code catalog.site})
 * @param holder     a unique id of the holding process (a new one at every start)
 * @param host       the holder's host name
 * @param pid        the holder's process id
 * @param epoch      1 for the first holder, one more at every takeover
 * @param acquiredAt when the holder took it
 * @param expiresAt  when it lapses unless renewed (0 once released)
 */
public record SiteLease(String site, String holder, String host, long pid, long epoch, long acquiredAt,
                        long expiresAt) {
}
