package org.tapeq.workload;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The ATLAS data carousel's rule, for the simulator and the load-test harness alike: of a campaign's inputs, at
 * most a share (the window) is requested or on buffer disk at once. A slot is taken when a stage request goes out;
 * it is freed when the staged file has been processed (the processing time after it arrived) or at once when the
 * stage failed; then the next input may go out. Safe to use from several threads (the harness counts on its
 * provider's and its issuing threads).
 */
public final class CarouselWindow {

    private final int slots;
    private final long processingMillis;
    private final AtomicInteger held = new AtomicInteger();

    /**
     * @param inputs           the inputs the carousel recalls (those it actually has, not those it planned)
     * @param percent          the window as a share of them, above 0 and at most 100
     * @param processingMillis how long a staged input is worked on before its slot is free
     */
    public CarouselWindow(int inputs, double percent, long processingMillis) {
        if (!(percent > 0 && percent <= 100)) {
            throw new IllegalArgumentException("carousel window must be above 0 % and at most 100 %: " + percent);
        }
        this.slots = slots(inputs, percent);
        this.processingMillis = processingMillis;
    }

    /** {@code percent} of {@code inputs}, rounded up, at least 1. */
    public static int slots(int inputs, double percent) {
        return Math.max(1, (int) Math.ceil(inputs * percent / 100));
    }

    public int slots() {
        return slots;
    }

    public long processingMillis() {
        return processingMillis;
    }

    /** How many more requests may go out now. */
    public int free() {
        return Math.max(0, slots - held.get());
    }

    /** {@code n} requests went out. */
    public void taken(int n) {
        held.addAndGet(n);
    }

    /** How long after its outcome a request's slot stays taken: the processing time, or 0 if it failed. */
    public long holdMillis(boolean staged) {
        return staged ? processingMillis : 0;
    }

    /** One request's slot is free again. */
    public void released() {
        held.decrementAndGet();
    }

    /**
     * Each of the last inputs needs a slot that an earlier file held for the processing time: the last of
     * {@code inputs} cannot go out before (ceil(inputs / slots) - 1) processing times.
     */
    public long minimumSpanMillis(int inputs) {
        long rounds = (inputs + slots - 1) / slots;
        return Math.max(0, rounds - 1) * processingMillis;
    }
}
