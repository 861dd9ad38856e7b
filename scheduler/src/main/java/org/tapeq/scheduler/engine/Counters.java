package org.tapeq.scheduler.engine;

import java.util.EnumMap;
import java.util.Map;

import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.Outcome;

/** Running totals for status and metrics; loop-confined, copied into each status snapshot. */
final class Counters {

    long stagesSubmitted;
    long stagesDone;
    long stagesFailed;
    long stagesCancelled;
    long flushesSubmitted;
    long flushesDone;
    long flushesFailed;
    long flushesCancelled;
    long removesSubmitted;
    long removesDone;
    long bytesRead;
    long bytesWritten;
    long aggregatesWritten;
    long mounts;
    /** Mounts of a cartridge that had been mounted before in this run. */
    long remounts;
    long unmounts;
    final Map<FaultKind, Long> faults = new EnumMap<>(FaultKind.class);

    void count(Outcome outcome, boolean stage) {
        if (outcome instanceof Outcome.Staged s) {
            stagesDone++;
            bytesRead += s.bytes();
        } else if (outcome instanceof Outcome.Flushed) {
            flushesDone++;
        } else if (outcome instanceof Outcome.Cancelled) {
            if (stage) {
                stagesCancelled++;
            } else {
                flushesCancelled++;
            }
        } else if (outcome instanceof Outcome.Failed) {
            if (stage) {
                stagesFailed++;
            } else {
                flushesFailed++;
            }
        }
    }

    void fault(FaultKind kind) {
        faults.merge(kind, 1L, Long::sum);
    }

    Map<String, Long> snapshot() {
        Map<String, Long> m = new java.util.LinkedHashMap<>();
        m.put("stages_submitted", stagesSubmitted);
        m.put("stages_done", stagesDone);
        m.put("stages_failed", stagesFailed);
        m.put("stages_cancelled", stagesCancelled);
        m.put("flushes_submitted", flushesSubmitted);
        m.put("flushes_done", flushesDone);
        m.put("flushes_failed", flushesFailed);
        m.put("flushes_cancelled", flushesCancelled);
        m.put("removes_submitted", removesSubmitted);
        m.put("removes_done", removesDone);
        m.put("bytes_read", bytesRead);
        m.put("bytes_written", bytesWritten);
        m.put("aggregates_written", aggregatesWritten);
        m.put("mounts", mounts);
        m.put("remounts", remounts);
        m.put("unmounts", unmounts);
        for (Map.Entry<FaultKind, Long> e : faults.entrySet()) {
            m.put("faults_" + e.getKey().name().toLowerCase(java.util.Locale.ROOT), e.getValue());
        }
        return m;
    }
}
