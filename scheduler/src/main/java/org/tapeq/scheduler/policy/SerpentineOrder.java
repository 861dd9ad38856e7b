package org.tapeq.scheduler.policy;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * tapeq's read order: the whole queue of a cartridge ordered for the least estimated locate time.
 *
 * <h2>Design notes</h2>
 * <p>The problem is an asymmetric travelling-salesman path from the head over the spans, priced by
 * {@link LocateCostModel}. Every hop pays a constant of a few seconds, a hop to another wrap pays several more
 * (more still across a band or direction), and travel pays by LPOS distance. That gives two regimes:
 * <ul>
 *   <li>sparse queues (a few spans per wrap): travel dominates, so serve spans by LPOS across many wraps in one
 *       pass, the way the head moves anyway - a sweep. Block order instead drags the head end to end along
 *       every wrap that holds a span;</li>
 *   <li>dense queues (tens of spans per wrap): the per-hop fixed costs dominate; staying on a wrap, and reading
 *       through small gaps, is cheapest - file-sequence order is then close to the bound of one constant per
 *       span, and no order can gain much.</li>
 * </ul>
 *
 * <p>Construction - candidates, each priced exactly with the cost model:
 * <ol>
 *   <li>file-sequence order (so the result is never worse than ENDIT's);</li>
 *   <li>{@link SweepTours}: for a ladder of wrap-group sizes from 2 (= block order) to the whole tape, a forward
 *       pass and a reverse pass per group, as a cycle joined where it is cheapest from the head; once with
 *       single spans and once with "runs" (spans chained along a wrap while each hop is cheap), which lets one
 *       tour be sweep-like where spans are sparse and block-ordered where they are dense;</li>
 *   <li>{@link NearestFirst}: exact greedy shortest-locate-first over the whole queue via per-wrap sorted lists,
 *       for queues up to {@link #GREEDY_LIMIT} spans (it is O(n * wraps) in the worst case);</li>
 *   <li>{@link RunTours}: when the spans chain into at most {@link RunTours#MAX_RUNS} runs (across wrap turns;
 *       a dataset recalled from co-located data), the exact best order of the whole runs (Held-Karp,
 *       O(2^k k^2) for k runs).</li>
 * </ol>
 * Improvement: {@link NeighbourOrOpt} moves runs of 1..3 spans to anywhere in the tour next to a span that is
 * cheap to reach them from (or to go on to), until no such move saves time. It is applied to the
 * {@link #POLISHED} best candidates (only the best one for queues over {@link #LARGE}) and the cheapest result is
 * returned. On uniform LTO-9 queues of 1 000-2 000 spans or-opt takes another 10-15 % off the best constructed
 * tour.
 *
 * <p>Cost: O(n log n) sorting, about 30 O(n) sweep pricings, the greedy, the run order (O(n) to find the runs,
 * O(2^k k^2) only when there are k <= 12), and or-opt at O(n * neighbours) per round; nothing compares all pairs
 * of spans. Deterministic: the same input gives the same order.
 *
 * <p>Limits: the estimate ignores what only the drive knows (real wrap boundaries, compression, drive-side RAO).
 * A cheaper tour under the estimate is only as good as the estimate; in particular CTA's fitted landing-zone
 * term rewards hops across mid-tape, which this order will exploit. The simulated library checks orders against
 * its own physical model.
 */
public final class SerpentineOrder implements ReadOrder {

    /** Largest queue for which the whole-queue greedy is tried as a candidate. */
    public static final int GREEDY_LIMIT = 20_000;
    /** Queues above this size polish only the single best candidate. */
    static final int LARGE = 20_000;
    /** How many of the best candidates are polished by or-opt. */
    static final int POLISHED = 3;
    /**
     * Run-chaining thresholds for the sweeps: none, and hops up to 7 s (a short locate or read-through); the
     * last one also chains the runs that {@link RunTours} orders.
     */
    static final double[] RUN_MAX_HOPS = {0, 7};
    /** A safety cap on or-opt moves (each strictly saves time, so it ends anyway; typically well under n). */
    static final int MAX_MOVES_PER_SPAN = 20;

    @Override
    public int[] order(long headBlock, long[] starts, long[] ends, EstimatedGeometry g) {
        SpanTable t = new SpanTable(headBlock, starts, ends, g);
        if (t.n == 0) {
            return new int[0];
        }
        List<Tour> candidates = new ArrayList<>();
        int[] fileSequence = t.byStartBlock();
        candidates.add(new Tour(fileSequence, t.cost(fileSequence)));
        candidates.add(SweepTours.best(t, RUN_MAX_HOPS));
        Tour runs = RunTours.best(t, RUN_MAX_HOPS[RUN_MAX_HOPS.length - 1]);
        if (runs != null) {
            candidates.add(runs);
        }
        if (t.n <= GREEDY_LIMIT) {
            int[] all = new int[t.n];
            for (int i = 0; i < t.n; i++) {
                all[i] = i;
            }
            int[] greedy = new NearestFirst(t, all).tour(t.headBlock, t.headWrap, t.headLpos);
            candidates.add(new Tour(greedy, t.cost(greedy)));
        }
        candidates.sort(Comparator.comparingDouble(Tour::cost));
        NeighbourOrOpt orOpt = new NeighbourOrOpt(t);
        Tour best = null;
        int polish = t.n > LARGE ? 1 : POLISHED;
        for (Tour candidate : candidates.subList(0, Math.min(polish, candidates.size()))) {
            int[] order = candidate.order().clone();
            double cost = candidate.cost() - orOpt.improve(order, MAX_MOVES_PER_SPAN * t.n);
            if (best == null || cost < best.cost()) {
                best = new Tour(order, cost);
            }
        }
        return t.toCaller(best.order());
    }

    @Override
    public String toString() {
        return "serpentine";
    }
}
