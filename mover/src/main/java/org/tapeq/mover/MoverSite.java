package org.tapeq.mover;

import java.util.List;

/**
 * The movers of a site as the active scheduler uses them (validated by the daemon's configuration).
 *
 * @param movers         every mover with its drives
 * @param changer        the mover whose library answers for the cartridges (the one that drives the changer)
 * @param commandMillis  deadline of one drive command (a mount with calibration, a long locate or transfer)
 * @param probeMillis    how often each mover is asked whether it is there
 * @param probeTimeoutMillis how long it has to answer (a refused connection counts at once)
 * @param stallMillis    how long a transfer may stand still before it is given up
 * @param identity       the site's name and shared token, which every command carries and every mover checks
 * @param robotByChanger the changer's mover makes every robot move and a drive's mover only loads and unloads
 *                       ({@code movers.robot: changer}); false: a drive's mover mounts through its own library
 */
public record MoverSite(List<MoverEndpoint> movers, String changer, long commandMillis, long probeMillis,
                        long probeTimeoutMillis, long stallMillis, SiteIdentity identity, boolean robotByChanger) {
    public MoverSite {
        movers = List.copyOf(movers);
    }

    /** A site whose drives' movers mount through their own libraries ({@code movers.robot: drives}). */
    public MoverSite(List<MoverEndpoint> movers, String changer, long commandMillis, long probeMillis,
                     long probeTimeoutMillis, long stallMillis, SiteIdentity identity) {
        this(movers, changer, commandMillis, probeMillis, probeTimeoutMillis, stallMillis, identity, false);
    }
}
