package org.tapeq.daemon;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import org.tapeq.daemon.control.ControlTarget;
import org.tapeq.daemon.control.StatusPage;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.engine.Scheduler;
import org.tapeq.scheduler.engine.lifecycle.ReclaimStatus;

/** The running daemon as the control socket's admin commands see it. */
final class DaemonControl implements ControlTarget {

    private final Daemon daemon;

    DaemonControl(Daemon daemon) {
        this.daemon = daemon;
    }

    @Override
    public Scheduler scheduler() {
        return daemon.scheduler();
    }

    @Override
    public JsonNode status(StatusPage page) {
        return daemon.statusTree(page);
    }

    @Override
    public JsonNode reclaim(ReclaimStatus status) {
        return daemon.reclaimTree(status);
    }

    @Override
    public String refusal() {
        String catalogDown = daemon.catalogHealth().unreachable();
        if (catalogDown != null) {
            return catalogDown + "; try again once `tapeq status` shows the catalog reachable";
        }
        return daemon.scheduler() == null ? "the daemon is starting; try again in a moment" : null;
    }

    @Override
    public List<CartridgeRecord> cartridges() {
        return daemon.catalog().cartridges();
    }

    @Override
    public Map<String, Long> fileCounts() {
        return daemon.catalog().fileCounts();
    }
}
