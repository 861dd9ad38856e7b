package org.tapeq.daemon.cli;

/** The text progress bar of {@code tapeq demo} and {@code tapeq loadtest}. */
public final class ProgressBar {

    private static final int WIDTH = 30;

    private ProgressBar() {
    }

    /** {@code [#####.....]}, 30 characters between the brackets, {@code n} of {@code total} filled. */
    public static String of(long n, long total) {
        int full = (int) (Math.min(n, total) * WIDTH / Math.max(1, total));
        return "[" + "#".repeat(full) + ".".repeat(WIDTH - full) + "]";
    }
}
