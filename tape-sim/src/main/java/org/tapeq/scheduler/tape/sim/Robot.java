package org.tapeq.scheduler.tape.sim;

/**
 * The library's arms. A move takes one arm for the exchange time; moves are served first come, first served
 * by the arm that is free earliest, so concurrent mounts queue behind the robot.
 */
final class Robot {

    private final long[] freeAt;
    private final long exchangeMillis;

    Robot(int arms, long exchangeMillis) {
        this.freeAt = new long[arms];
        this.exchangeMillis = exchangeMillis;
    }

    int arms() {
        return freeAt.length;
    }

    long exchangeMillis() {
        return exchangeMillis;
    }

    /** Books a move requested at {@code now}; returns when it starts (it ends {@link #exchangeMillis} later). */
    long book(long now) {
        int arm = 0;
        for (int i = 1; i < freeAt.length; i++) {
            if (freeAt[i] < freeAt[arm]) {
                arm = i;
            }
        }
        long start = Math.max(now, freeAt[arm]);
        freeAt[arm] = start + exchangeMillis;
        return start;
    }
}
