package org.tapeq.workload;

import java.util.List;

import org.tapeq.scheduler.model.FlushRequest;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.StageRequest;
import org.tapeq.scheduler.model.TapeRequest;

/**
 * Issues a workload's requests into a running simulation: a fixed trace, or requests that follow completions
 * (a carousel). Request ids must be 0 .. {@link #requestCount()} - 1, each used once.
 */
public interface RequestSource {

    /** How the source reaches the scheduler; times are milliseconds since the start of the workload. */
    interface Submit {
        long now();

        void at(long millis, Runnable action);

        void stage(List<StageRequest> requests);

        void flush(FlushRequest request);
    }

    /** Total number of requests the source issues. */
    int requestCount();

    /**
     * Every request the source will issue, with the earliest time it can arrive (0 where it depends on the run,
     * as in a carousel): what the physical bound is computed from.
     */
    List<Trace.Arrival> demand();

    /**
     * The shortest time the source itself needs to issue all its requests whatever the tape does (a carousel's
     * window and processing time), for the bound; 0 if none.
     */
    default long minimumSpanMillis() {
        return 0;
    }

    /** Called once at the start (time 0). */
    void start(Submit submit);

    /** Called for every outcome, on the loop. */
    default void completed(TapeRequest request, Outcome outcome, Submit submit) {
    }

    /** Stage requests for {@code files}, ids from {@code firstId}, in the given order. */
    static List<StageRequest> stages(List<FileSpec> files, int firstId) {
        StageRequest[] out = new StageRequest[files.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = stage(files.get(i), firstId + i);
        }
        return List.of(out);
    }

    static StageRequest stage(FileSpec f, long id) {
        return new StageRequest(id, f.pnfsid(), f.size(), f.storageClass(), f.path(), f.group(), null, 0, 0, null);
    }

    static FlushRequest flush(FileSpec f, long id) {
        return new FlushRequest(id, f.pnfsid(), f.size(), f.storageClass(), f.path(), f.dataset(), f.group(), 0, 0,
                null, null);
    }
}
