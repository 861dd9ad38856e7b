package org.tapeq.simulator;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.tapeq.scheduler.model.FlushRequest;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.model.StageRequest;
import org.tapeq.scheduler.tape.sim.SimulatedLibrary;
import org.tapeq.workload.Trace;

/*
 * Design notes: the physical lower bound of a workload's makespan, from the simulated library's own physics
 * (never from the scheduler's estimates), so that no policy can beat it.
 *
 * Per cartridge c holding requested files (one mount each is unavoidable):
 *   R_c = exchange + load + E_c + S_c
 *     exchange, load   robot move and load to ready (library and media figures)
 *     E_c              the entry term: every requested file entered once, from the load point or from the end
 *                      of another requested file, each end before at most one file (TrueReadCosts)
 *     S_c              sum of the requested files' sizes / native rate (only the files themselves are streamed)
 *   U_c = min over requested files f of unload-rewind(end of f) + unload + exchange: the cheapest way to free the
 *     drive, the unload-rewind being the cheaper of a rewind and a locate to the start plus the rewind from there.
 * Writes of W bytes need at least M_w = max(1, ceil(W / capacity)) mounts: R_w = M_w (exchange + load) + W / rate,
 *   each freed with at least unload + exchange.
 * With D drives and M = C + M_w mounts, at most D cartridges stay in their drives at the end, so the M - D
 * cheapest unmounts are unavoidable:
 *   drives  = (sum R_c + R_w + sum of the M - D smallest U) / D
 *   longest = max R_c                     (one cartridge is read by one drive)
 *   robot   = (M + max(0, M - D)) exchange / arms
 *   arrival = max over requests of (earliest arrival + size / rate), and at least the source's own minimum span
 *             (a carousel of N inputs through W slots held P each after staging: (ceil(N / W) - 1) P)
 *   bound   = max(drives, longest, robot, arrival)
 * Left out, so the bound stays a lower bound: any locate beyond each file's cheapest entry, filemarks, queueing for
 * the robot, group caps, a carousel's window (its requests count as arriving at 0).
 * Alongside, for reads: the locate time of the best order of whole runs per cartridge (BestReadOrder) and of the
 * greedy order on the true physics (the oracle, TrueReadCosts).
 */

/** The physical lower bound of a workload's makespan; see the design notes at the top of this file. */
record PhysicalBound(double boundMillis, double drivesMillis, double longestMillis, double robotMillis,
                     double arrivalMillis, int mounts, double bestLocateMillis, double entryMillis,
                     double oracleLocateMillis) {

    static PhysicalBound of(List<Trace.Arrival> demand, long minimumSpanMillis,
                            Map<String, TapeLoader.Location> locations, SimulatedLibrary library, MediaType media,
                            int drives) {
        double rate = media.rateBytesPerSecond() / 1000d;
        long exchange = library.exchangeMillis();
        Map<String, List<TapeLoader.Location>> byCartridge = new HashMap<>();
        long writeBytes = 0;
        double arrival = minimumSpanMillis;
        for (Trace.Arrival a : demand) {
            long size;
            if (a.request() instanceof StageRequest s) {
                TapeLoader.Location where = locations.get(s.pnfsid());
                if (where == null) {
                    continue; // fails at once: no tape work
                }
                byCartridge.computeIfAbsent(where.barcode(), k -> new ArrayList<>()).add(where);
                size = where.size();
            } else {
                size = ((FlushRequest) a.request()).size();
                writeBytes += size;
            }
            arrival = Math.max(arrival, a.atMillis() + size / rate);
        }
        double work = 0;
        double longest = 0;
        List<Double> unmounts = new ArrayList<>();
        double entries = 0;
        double oracle = 0;
        for (Map.Entry<String, List<TapeLoader.Location>> e : byCartridge.entrySet()) {
            long bytes = 0;
            for (TapeLoader.Location l : e.getValue()) {
                bytes += l.size();
            }
            TrueReadCosts c = TrueReadCosts.of(e.getKey(), e.getValue(), library);
            entries += c.entryMillis();
            oracle += c.oracleMillis();
            double r = exchange + media.loadMillis() + c.entryMillis() + bytes / rate;
            work += r;
            longest = Math.max(longest, r);
            unmounts.add(c.unmountMillis() + media.unloadMillis() + exchange);
        }
        int mounts = byCartridge.size();
        if (writeBytes > 0) {
            int writeMounts = (int) Math.max(1, (writeBytes + media.capacityBytes() - 1) / media.capacityBytes());
            mounts += writeMounts;
            work += writeMounts * (double) (exchange + media.loadMillis()) + writeBytes / rate;
            for (int i = 0; i < writeMounts; i++) {
                unmounts.add((double) media.unloadMillis() + exchange);
            }
        }
        Collections.sort(unmounts);
        int forced = Math.max(0, mounts - drives);
        for (int i = 0; i < forced; i++) {
            work += unmounts.get(i);
        }
        double drivesBound = work / drives;
        double robot = (mounts + forced) * (double) exchange / library.robotArms();
        double bound = Math.max(Math.max(drivesBound, longest), Math.max(robot, arrival));
        return new PhysicalBound(bound, drivesBound, longest, robot, arrival, byCartridge.size(),
                BestReadOrder.locateMillis(byCartridge.values(), library), entries,
                byCartridge.isEmpty() ? Double.NaN : oracle);
    }
}
