package org.tapeq.loadtest.report;

import java.util.ArrayList;
import java.util.List;

import org.tapeq.loadtest.run.Format;
import org.tapeq.loadtest.run.RequestLog.End;
import org.tapeq.loadtest.run.RunRecord;
import org.tapeq.workload.scenario.Targets;

/**
 * Pass or fail of a run against its scenario's {@link Targets}: every check must pass. A stopped (partial) run
 * fails, since what it did not finish could still have been lost; so does any SPI violation the pool saw.
 */
public record Verdict(List<Check> checks) {

    /** One line of the verdict: what was required, what was measured. */
    public record Check(String name, String required, String measured, boolean passed) {
    }

    public static Verdict of(RunRecord run, Summary s) {
        Targets t = run.scenario().targets();
        List<Check> checks = new ArrayList<>();
        checks.add(new Check("complete", "every request ended", run.partial() ? "stopped: " + run.stopReason()
                : "yes", !run.partial()));
        long lost = s.count(End.LOST);
        checks.add(new Check("lost", "<= " + t.maxLost(), Long.toString(lost), lost <= t.maxLost()));
        long failed = s.count(End.FAILED) + run.prepareFailed();
        checks.add(new Check("failed", "<= " + t.maxFailed(), failed + (run.prepareFailed() > 0
                ? " (" + run.prepareFailed() + " while writing the inputs)" : ""), failed <= t.maxFailed()));
        checks.add(new Check("SPI violations", "0", Integer.toString(run.spiViolations()), run.spiViolations() == 0));
        if (t.sustainedRate() > 0) {
            String window = Format.duration(t.windowMillis());
            checks.add(new Check("sustained rate", ">= " + Format.rate(t.sustainedRate()) + " over " + window,
                    s.sustainedRate() < 0 ? "run shorter than " + window : Format.rate(s.sustainedRate()),
                    s.sustainedRate() >= t.sustainedRate()));
        }
        if (t.maxP99Millis() > 0) {
            double p99 = s.worstP99();
            checks.add(new Check("p99 latency", "<= " + Format.duration(t.maxP99Millis()),
                    p99 < 0 ? "nothing completed" : Format.duration(p99), p99 >= 0 && p99 <= t.maxP99Millis()));
        }
        return new Verdict(checks);
    }

    public boolean passed() {
        return checks.stream().allMatch(Check::passed);
    }
}
