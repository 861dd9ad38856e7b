package org.tapeq.daemon.bridge;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.RequestListener;
import org.tapeq.scheduler.model.TapeRequest;

/** The scheduler's one listener: hands each outcome to the bridge its request id names. */
public final class OutcomeRouter implements RequestListener {

    private static final Logger LOG = LoggerFactory.getLogger(OutcomeRouter.class);

    private final DirectoryBridge[] bridges = new DirectoryBridge[BridgeSettings.MAX_DIRECTORIES];

    public void add(DirectoryBridge bridge) {
        bridges[bridge.index()] = bridge;
    }

    @Override
    public void completed(TapeRequest request, Outcome outcome) {
        DirectoryBridge b = bridges[(int) (request.id() & 0xff)];
        if (b == null) {
            LOG.error("Outcome {} of {} (id {}) has no directory; dropped", outcome, request.pnfsid(), request.id());
            return;
        }
        b.completed(request, outcome);
    }
}
