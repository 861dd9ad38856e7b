package org.tapeq.scheduler.policy;

/** Head positions for tests. */
final class SpanQueuesHeads {

    private SpanQueuesHeads() {
    }

    /** Half way along wrap 141 (in band 2, running back): LPOS 0.5, the middle of the tape in every sense. */
    static long midTape(EstimatedGeometry g) {
        return (long) (141.5 * g.blocksPerWrap());
    }
}
