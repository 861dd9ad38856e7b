package org.tapeq.workload;

import java.util.ArrayList;
import java.util.List;

import org.tapeq.scheduler.model.FlushRequest;
import org.tapeq.scheduler.model.StageRequest;
import org.tapeq.scheduler.model.TapeRequest;

/**
 * A fixed list of requests with their arrival times. Requests arriving at the same millisecond reach the
 * scheduler together (stages as one batch, like a burst handed over by the daemon).
 */
public final class Trace implements RequestSource {

    /** One request and when it arrives. */
    public record Arrival(long atMillis, TapeRequest request) {
    }

    private final List<Arrival> arrivals = new ArrayList<>();

    /** Adds a request; arrivals must be added in time order. */
    public Trace add(long atMillis, TapeRequest request) {
        if (!arrivals.isEmpty() && atMillis < arrivals.get(arrivals.size() - 1).atMillis()) {
            throw new IllegalArgumentException("arrivals out of order at " + atMillis);
        }
        arrivals.add(new Arrival(atMillis, request));
        return this;
    }

    @Override
    public List<Arrival> demand() {
        return List.copyOf(arrivals);
    }

    @Override
    public int requestCount() {
        return arrivals.size();
    }

    @Override
    public void start(Submit submit) {
        int i = 0;
        while (i < arrivals.size()) {
            long at = arrivals.get(i).atMillis();
            int j = i;
            while (j < arrivals.size() && arrivals.get(j).atMillis() == at) {
                j++;
            }
            List<Arrival> batch = arrivals.subList(i, j);
            submit.at(at, () -> {
                List<StageRequest> stages = new ArrayList<>();
                for (Arrival a : batch) {
                    if (a.request() instanceof StageRequest s) {
                        stages.add(s);
                    } else {
                        submit.flush((FlushRequest) a.request());
                    }
                }
                if (!stages.isEmpty()) {
                    submit.stage(stages);
                }
            });
            i = j;
        }
    }
}
