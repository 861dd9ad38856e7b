package org.tapeq.loadtest.run;

import java.io.PrintStream;
import java.util.Locale;

import org.tapeq.daemon.cli.ProgressBar;

/**
 * The live progress line: bar, requests ended of all, current rates (library time), queue depth and outstanding
 * requests. On a terminal it is redrawn in place every sample; otherwise (a log file) a line every ten seconds.
 */
final class Progress {

    private static final long LOG_EVERY_NANOS = 10_000_000_000L;

    private final PrintStream out;
    private final boolean terminal;
    private long lastLine;
    private Sample previous;

    Progress(PrintStream out, boolean terminal) {
        this.out = out;
        this.terminal = terminal;
    }

    synchronized void show(String phase, long done, long total, Sample s, double speed) {
        double seconds = previous == null ? 0 : (s.wallMillis() - previous.wallMillis()) / 1000.0 * speed;
        double flushRate = seconds > 0 ? (s.bytesFlushed() - previous.bytesFlushed()) / seconds : 0;
        double stageRate = seconds > 0 ? (s.bytesStaged() - previous.bytesStaged()) / seconds : 0;
        previous = s;
        String line = String.format(Locale.ROOT, "%-8s %s %,d/%,d  write %s  read %s  queued %s  outstanding %,d"
                        + "  mounts %s  %s", phase, ProgressBar.of(done, total), done, total, Format.rate(flushRate),
                Format.rate(stageRate), known(s.queued()), s.outstanding(), known(s.mounts()),
                Format.duration(s.wallMillis() * speed));
        long now = System.nanoTime();
        if (terminal) {
            out.print("\r" + line + "   ");
            out.flush();
        } else if (now - lastLine >= LOG_EVERY_NANOS) {
            out.println(line);
            lastLine = now;
        }
    }

    private static String known(long n) {
        return n < 0 ? "?" : String.format(Locale.ROOT, "%,d", n);
    }

    synchronized void end() {
        if (terminal) {
            out.println();
        }
        previous = null;
        lastLine = 0;
    }

    void say(String text) {
        out.println(text);
    }
}
