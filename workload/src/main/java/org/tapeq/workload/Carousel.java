package org.tapeq.workload;

import java.util.ArrayList;
import java.util.List;

import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.TapeRequest;

/**
 * The data carousel as a request source of the simulator: the inputs in order, through a {@link CarouselWindow}.
 * At the start the window's worth goes out; after each outcome, once its slot is free again (after the processing
 * time, or at once for a failed stage), the next inputs go out. One workload runs once per policy: each run starts
 * with a new window, from the first input.
 */
public final class Carousel implements RequestSource {

    private final List<FileSpec> inputs;
    private final double percent;
    private final long processingMillis;
    private CarouselWindow window;
    private int next;

    /** A window of {@code percent} of the inputs; each staged input is processed for {@code processingMillis}. */
    public Carousel(List<FileSpec> inputs, double percent, long processingMillis) {
        this.inputs = List.copyOf(inputs);
        this.percent = percent;
        this.processingMillis = processingMillis;
        this.window = new CarouselWindow(inputs.size(), percent, processingMillis);
    }

    /** Requests out at once at most. */
    public int window() {
        return window.slots();
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

    @Override
    public long minimumSpanMillis() {
        return window.minimumSpanMillis(inputs.size());
    }

    @Override
    public int requestCount() {
        return inputs.size();
    }

    @Override
    public void start(Submit submit) {
        window = new CarouselWindow(inputs.size(), percent, processingMillis);
        next = 0;
        issue(submit);
    }

    @Override
    public void completed(TapeRequest request, Outcome outcome, Submit submit) {
        submit.at(submit.now() + window.holdMillis(outcome instanceof Outcome.Staged), () -> {
            window.released();
            issue(submit);
        });
    }

    private void issue(Submit submit) {
        int n = Math.min(window.free(), inputs.size() - next);
        if (n > 0) {
            window.taken(n);
            submit.stage(RequestSource.stages(inputs.subList(next, next + n), next));
            next += n;
        }
    }
}
