package org.tapeq.scheduler.engine.drive;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.TapeLibrary;

/*
 * Design notes: a drive orders at most accessOrderLimit ranges per GENERATE RECOMMENDED ACCESS ORDER, so each of
 * the policy's groups is cut into pieces of that size, in the group's own order (CTA does the same:
 * EnterpriseRAOAlgorithm::performRAO queries the drive whenever m_maxFilesSupported files are collected). The pieces
 * are asked one after the other, each a drive operation; a piece of one range needs no question. The drive's answer
 * is checked to be a permutation of the piece before it is trusted: anything else fails the whole request, and the
 * caller orders the reads itself.
 */

/** Asks a drive for its recommended access order over a pass's spans, in the policy's groups; see the notes. */
final class DriveOrderRequest {

    private final TapeLibrary library;
    private final String drive;
    private final long[] starts;
    private final long[] ends;
    private final List<int[]> pieces = new ArrayList<>();
    private final int[] order;
    private final Completion<int[]> done;
    private int filled;
    private int next;

    private DriveOrderRequest(TapeLibrary library, String drive, long[] starts, long[] ends, List<int[]> groups,
                              int limit, Completion<int[]> done) {
        this.library = library;
        this.drive = drive;
        this.starts = starts;
        this.ends = ends;
        this.done = done;
        int total = 0;
        for (int[] g : groups) {
            for (int from = 0; from < g.length; from += limit) {
                pieces.add(Arrays.copyOfRange(g, from, Math.min(g.length, from + limit)));
            }
            total += g.length;
        }
        if (total != starts.length) {
            throw new IllegalArgumentException("the groups hold " + total + " spans of " + starts.length);
        }
        this.order = new int[total];
    }

    /**
     * Asks {@code library}'s drive {@code drive} for its order of every group of spans, at most {@code limit} per
     * question, and completes with the whole order (the groups one after the other), or fails with the drive's
     * fault or a {@link FaultKind#DRIVE} fault naming a malformed answer.
     */
    static void ask(TapeLibrary library, String drive, long[] starts, long[] ends, List<int[]> groups, int limit,
                    Completion<int[]> done) {
        if (limit <= 0) {
            throw new IllegalArgumentException("the drive orders no ranges (limit " + limit + ")");
        }
        new DriveOrderRequest(library, drive, starts, ends, groups, limit, done).askNext();
    }

    private void askNext() {
        while (next < pieces.size() && pieces.get(next).length == 1) {
            order[filled++] = pieces.get(next++)[0];
        }
        if (next == pieces.size()) {
            done.succeeded(order);
            return;
        }
        int[] piece = pieces.get(next++);
        long[] s = new long[piece.length];
        long[] e = new long[piece.length];
        for (int i = 0; i < piece.length; i++) {
            s[i] = starts[piece[i]];
            e[i] = ends[piece[i]];
        }
        library.recommendAccessOrder(drive, s, e, new Completion<>() {
            @Override
            public void succeeded(int[] answer) {
                String wrong = notAPermutation(answer, piece.length);
                if (wrong != null) {
                    done.failed(new TapeFault(FaultKind.DRIVE, "drive " + drive + " recommended an order that "
                            + wrong));
                    return;
                }
                for (int i : answer) {
                    order[filled++] = piece[i];
                }
                askNext();
            }

            @Override
            public void failed(TapeFault fault) {
                done.failed(fault);
            }
        });
    }

    /** Null if {@code answer} is a permutation of {@code 0..n-1}, else what is wrong with it. */
    static String notAPermutation(int[] answer, int n) {
        if (answer == null || answer.length != n) {
            return "has " + (answer == null ? "no" : answer.length) + " entries for " + n + " ranges";
        }
        boolean[] seen = new boolean[n];
        for (int i : answer) {
            if (i < 0 || i >= n || seen[i]) {
                return "names range " + i + " twice or out of 0.." + (n - 1);
            }
            seen[i] = true;
        }
        return null;
    }
}
