package org.tapeq.simulator;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.tapeq.scheduler.engine.Scheduler;
import org.tapeq.scheduler.engine.lifecycle.RepackReport;
import org.tapeq.scheduler.time.EventLoop;

/**
 * The engine's repack of a scenario's {@code repack:} cartridges beside its workload: at the given time every
 * source is handed to {@code Scheduler.repackCartridge} (what {@code tapeq cartridge repack} does), and the engine
 * runs them as background work under {@code scheduler.maxBackgroundDrives}. Records how far they got when the
 * workload's last request ended, and when they ended.
 */
final class RepackBeside {

    /**
     * What the repacks did in one run.
     *
     * @param cartridges       sources
     * @param emptied          sources left without a live file ({@code EMPTY})
     * @param bytesTotal       live bytes on the sources when asked for
     * @param bytesAtRecallEnd bytes moved when the workload's last request ended
     * @param bytesDone        bytes moved in all
     * @param filesFailed      files that could not be moved
     * @param endS             when the last repack ended, seconds from the run's start
     */
    record Progress(int cartridges, int emptied, long bytesTotal, long bytesAtRecallEnd, long bytesDone,
                    int filesFailed, double endS) {
    }

    private final EventLoop loop;
    private final Scheduler scheduler;
    private final List<String> sources;
    private final long t0;
    private long bytesAtRecallEnd = -1;
    private String refused;

    private RepackBeside(EventLoop loop, Scheduler scheduler, List<String> sources, long t0) {
        this.loop = loop;
        this.scheduler = scheduler;
        this.sources = List.copyOf(sources);
        this.t0 = t0;
    }

    /** Asks for every source's repack {@code startMillis} after now ({@code t0}, the run's start). */
    static RepackBeside start(EventLoop loop, Scheduler scheduler, List<String> sources, long startMillis) {
        RepackBeside r = new RepackBeside(loop, scheduler, sources, loop.now());
        loop.schedule(startMillis, () -> {
            for (String s : r.sources) {
                scheduler.repackCartridge(s, null).whenComplete((report, e) -> {
                    if (e != null && r.refused == null) {
                        r.refused = "the repack of " + s + " was refused: " + e.getMessage();
                    }
                });
            }
        });
        return r;
    }

    /** The workload's last request ended: notes the bytes moved so far (on the loop, at once). */
    void workloadEnded() {
        scheduler.status(0).thenAccept(s -> bytesAtRecallEnd = moved(s.repacks()));
    }

    private static long moved(List<RepackReport> reports) {
        long sum = 0;
        for (RepackReport r : reports) {
            sum += r.bytesDone();
        }
        return sum;
    }

    /** After the loop ran out of work: every repack must have ended done, else the run is an error. */
    Progress result(Runnable runLoop) {
        CompletableFuture<List<RepackReport>> f = scheduler.status(0).thenApply(s -> s.repacks());
        runLoop.run();
        if (refused != null) {
            throw new IllegalStateException(refused);
        }
        List<RepackReport> reports = f.join().stream().filter(r -> sources.contains(r.source())).toList();
        if (reports.size() != sources.size()) {
            throw new IllegalStateException(sources.size() + " repacks asked for, " + reports.size() + " reported");
        }
        int emptied = 0;
        int failed = 0;
        long total = 0;
        long done = 0;
        long end = t0;
        for (RepackReport r : reports) {
            if (!r.state().equals("done")) {
                throw new IllegalStateException("the repack of " + r.source() + " ended " + r.state() + ": "
                        + r.error());
            }
            emptied += r.emptied() ? 1 : 0;
            failed += r.filesFailed();
            total += r.bytesTotal();
            done += r.bytesDone();
            end = Math.max(end, r.ended());
        }
        return new Progress(sources.size(), emptied, total, bytesAtRecallEnd < 0 ? done : bytesAtRecallEnd, done,
                failed, (end - t0) / 1000d);
    }
}
