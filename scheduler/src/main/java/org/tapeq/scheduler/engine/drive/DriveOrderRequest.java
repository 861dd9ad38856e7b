package org.tapeq.scheduler.engine.drive;

import java.util.Arrays;
import java.util.List;

import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.TapeLibrary;

/*
 * Design notes: a drive orders at most accessOrderLimit ranges per GENERATE RECOMMENDED ACCESS ORDER, and orders
 * them from where its head is when asked. So a pass is handed to the drive one piece at a time: the first group of
 * the policy, cut at the drive's limit in the group's own order (CTA does the same: EnterpriseRAOAlgorithm::performRAO
 * queries the drive whenever m_maxFilesSupported files are collected). When that piece has been read, ReadPass plans
 * again and asks for the next piece from where the head then is; asking for every piece up front would order every
 * piece after the first from the pass's starting position. A piece of one range needs no question. The drive's answer
 * is checked to be a permutation of the piece before it is trusted: anything else fails the request, and the caller
 * orders the reads itself. The pass itself is the policy's: the first passLimit spans of the groups, in the groups'
 * order (as the policy's own pass is the first passLimit units of its order); the caller keeps its members and asks
 * for each next piece among them only, unless the policy lets new reads join a running pass.
 */

/** Asks a drive for its recommended access order over the first piece of a pass; see the design notes. */
final class DriveOrderRequest {

    /**
     * The drive's order of the first piece (indices of the spans), whether spans of the pass are left after it, and
     * the spans of the whole pass (the first {@code passLimit} of the groups, in their order).
     */
    record Piece(int[] order, boolean more, int[] pass) {
    }

    private DriveOrderRequest() {
    }

    /** The first piece: the first group's first {@code limit} spans; a group list that misses spans is an error. */
    static int[] firstPiece(List<int[]> groups, int spans, int limit) {
        if (groups == null) {
            throw new IllegalArgumentException("no groups");
        }
        if (limit <= 0) {
            throw new IllegalArgumentException("the drive orders no ranges (limit " + limit + ")");
        }
        int total = 0;
        for (int[] g : groups) {
            total += g.length;
        }
        if (total != spans || groups.isEmpty() || groups.get(0).length == 0) {
            throw new IllegalArgumentException("the groups hold " + total + " spans of " + spans);
        }
        int[] first = groups.get(0);
        return Arrays.copyOf(first, Math.min(first.length, limit));
    }

    /** The spans of the pass: the first {@code passLimit} of {@code groups}, in the groups' order. */
    static int[] passOf(List<int[]> groups, int passLimit) {
        int[] pass = new int[0];
        for (int[] g : groups) {
            int n = Math.min(g.length, passLimit - pass.length);
            if (n <= 0) {
                break;
            }
            int at = pass.length;
            pass = Arrays.copyOf(pass, at + n);
            System.arraycopy(g, 0, pass, at, n);
        }
        return pass;
    }

    /**
     * Asks {@code library}'s drive {@code drive} for its order of the first piece of {@code groups} (at most
     * {@code limit} spans, and no more than the pass of {@code passLimit} spans) and completes with it, or fails with
     * the drive's fault, or a {@link TapeFault#refusal} ({@link FaultKind#DRIVE}) naming a malformed answer. Throws
     * IllegalArgumentException for groups that miss spans (the caller's error, before the drive is asked).
     */
    static void ask(TapeLibrary library, String drive, long[] starts, long[] ends, List<int[]> groups, int limit,
                    int passLimit, Completion<Piece> done) {
        int[] piece = firstPiece(groups, starts.length, Math.min(limit, passLimit));
        int[] pass = passOf(groups, passLimit);
        boolean more = piece.length < pass.length;
        if (piece.length == 1) {
            done.succeeded(new Piece(piece, more, pass));
            return;
        }
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
                    done.failed(TapeFault.refusal("drive " + drive + " recommended an order that " + wrong));
                    return;
                }
                int[] order = new int[piece.length];
                for (int i = 0; i < answer.length; i++) {
                    order[i] = piece[answer[i]];
                }
                done.succeeded(new Piece(order, more, pass));
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
