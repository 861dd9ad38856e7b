package org.tapeq.simulator.workload;

import java.util.ArrayList;
import java.util.List;

import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.TapeRequest;

/**
 * The ATLAS data carousel: a campaign's inputs are staged through a sliding window. At most {@code window}
 * files are requested or on buffer disk at once; a staged file is processed for {@code processingMillis} and
 * then released, and the next input is requested. A failed stage frees its slot at once.
 */
public final class Carousel implements RequestSource {

    private final List<FileSpec> inputs;
    private final int window;
    private final long processingMillis;
    private int next;

    public Carousel(List<FileSpec> inputs, int window, long processingMillis) {
        if (window <= 0) {
            throw new IllegalArgumentException("carousel window must be positive: " + window);
        }
        this.inputs = List.copyOf(inputs);
        this.window = window;
        this.processingMillis = processingMillis;
    }

    public int window() {
        return window;
    }

    public List<FileSpec> inputs() {
        return inputs;
    }

    @Override
    public List<Trace.Arrival> demand() {
        List<Trace.Arrival> all = new ArrayList<>(inputs.size());
        for (int i = 0; i < inputs.size(); i++) {
            all.add(new Trace.Arrival(0, RequestSource.stage(inputs.get(i), i)));
        }
        return all;
    }

    /**
     * Each of the last inputs needs a slot that an earlier file held for the processing time: with W slots the
     * last input cannot be issued before (ceil(N / W) - 1) processing times.
     */
    @Override
    public long minimumSpanMillis() {
        long rounds = (inputs.size() + window - 1) / window;
        return Math.max(0, rounds - 1) * processingMillis;
    }

    @Override
    public int requestCount() {
        return inputs.size();
    }

    @Override
    public void start(Submit submit) {
        int first = Math.min(window, inputs.size());
        submit.stage(RequestSource.stages(inputs.subList(0, first), 0));
        next = first;
    }

    @Override
    public void completed(TapeRequest request, Outcome outcome, Submit submit) {
        long delay = outcome instanceof Outcome.Staged ? processingMillis : 0;
        submit.at(submit.now() + delay, () -> {
            if (next < inputs.size()) {
                submit.stage(List.of(RequestSource.stage(inputs.get(next), next)));
                next++;
            }
        });
    }
}
