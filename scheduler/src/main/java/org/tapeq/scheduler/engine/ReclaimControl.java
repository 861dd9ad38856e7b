package org.tapeq.scheduler.engine;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;

import org.tapeq.scheduler.engine.lifecycle.ReclaimPolicy;
import org.tapeq.scheduler.engine.lifecycle.ReclaimStatus;

/**
 * The operator's controls of the automatic reclamation policy ({@code tapeq reclaim pause|resume|status}); any
 * thread: each call runs on the loop. Pause and resume end once the catalog records them, so they outlive a
 * restart; see {@link ReclaimPolicy} for what a pause stops.
 */
public final class ReclaimControl {

    private final Engine engine;

    ReclaimControl(Engine engine) {
        this.engine = engine;
    }

    /** Starts no new repack until resumed, across restarts; repacks already started run on. */
    public CompletableFuture<ReclaimStatus> pause(String reason) {
        Objects.requireNonNull(reason, "reason");
        if (reason.isBlank()) {
            throw new IllegalArgumentException("a pause needs a reason (shown in status)");
        }
        return LoopCall.onLoopThen(engine.loop, () -> engine.reclaim.pause(reason));
    }

    /** Lets the policy start repacks again; it looks for candidates at once. */
    public CompletableFuture<ReclaimStatus> resume() {
        return LoopCall.onLoopThen(engine.loop, engine.reclaim::resume);
    }

    /** The policy's state, candidates and repacks. */
    public CompletableFuture<ReclaimStatus> status() {
        return LoopCall.on(engine.loop, f -> f.complete(engine.reclaim.status()));
    }
}
