package org.tapeq.scheduler.policy;

/** Normal equations of a small linear least-squares fit, accumulated one observation at a time. Not thread-safe. */
final class LeastSquares {

    private final int k;
    /** X'X augmented with X'y in the last column. */
    private final double[][] a;
    private double yy;
    private int count;

    LeastSquares(int features) {
        this.k = features;
        this.a = new double[features][features + 1];
    }

    /**
     * A prior, added after the observations: coefficient j is pulled towards {@code prior[j]} as strongly as
     * {@code weight} typical observations pull it (the mean square of its feature, at least {@code floor}), so a
     * coefficient the data do not support stays at its prior and one they do moves freely.
     */
    void prior(double[] prior, double weight, double floor) {
        double[] x = new double[k];
        for (int j = 0; j < k; j++) {
            double meanSquare = count == 0 ? 0 : a[j][j] / count;
            double w = Math.sqrt(weight * Math.max(meanSquare, floor));
            x[j] = w;
            add(x, w * prior[j]);
            x[j] = 0;
        }
    }

    void add(double[] x, double y) {
        count++;
        yy += y * y;
        for (int r = 0; r < k; r++) {
            double xr = x[r];
            if (xr == 0) {
                continue;
            }
            for (int c = 0; c < k; c++) {
                a[r][c] += xr * x[c];
            }
            a[r][k] += xr * y;
        }
    }

    /**
     * The least-squares coefficients, with {@code fixedZero[j]} (may be null) forcing coefficient j to 0; a
     * coefficient without support in the data (an all-zero feature) comes out 0.
     */
    double[] solve(boolean[] fixedZero) {
        double[][] m = new double[k][k + 1];
        for (int r = 0; r < k; r++) {
            boolean zr = fixedZero != null && fixedZero[r];
            for (int c = 0; c <= k; c++) {
                boolean zc = c < k && fixedZero != null && fixedZero[c];
                m[r][c] = zr ? (c == r ? 1 : 0) : zc ? 0 : a[r][c];
            }
            m[r][r] += 1e-9; // a tiny ridge keeps an all-zero feature from making the system singular
        }
        for (int col = 0; col < k; col++) {
            int pivot = col;
            for (int r = col + 1; r < k; r++) {
                if (Math.abs(m[r][col]) > Math.abs(m[pivot][col])) {
                    pivot = r;
                }
            }
            double[] t = m[col];
            m[col] = m[pivot];
            m[pivot] = t;
            for (int r = col + 1; r < k; r++) {
                double f = m[r][col] / m[col][col];
                for (int c = col; c <= k; c++) {
                    m[r][c] -= f * m[col][c];
                }
            }
        }
        double[] beta = new double[k];
        for (int r = k - 1; r >= 0; r--) {
            double v = m[r][k];
            for (int c = r + 1; c < k; c++) {
                v -= m[r][c] * beta[c];
            }
            beta[r] = v / m[r][r];
        }
        return beta;
    }

    /** Sum of squared residuals left by {@code beta} (a least-squares solution of this system). */
    double residual(double[] beta) {
        double explained = 0;
        for (int r = 0; r < k; r++) {
            explained += beta[r] * a[r][k];
        }
        return Math.max(0, yy - explained);
    }

    /**
     * Least squares with every coefficient at least 0 (active set: the most negative coefficient is fixed at 0 and
     * the rest refitted, until none is negative).
     */
    double[] solveNonNegative() {
        boolean[] zero = new boolean[k];
        while (true) {
            double[] beta = solve(zero);
            int worst = -1;
            for (int j = 0; j < k; j++) {
                if (!zero[j] && beta[j] < 0 && (worst < 0 || beta[j] < beta[worst])) {
                    worst = j;
                }
            }
            if (worst < 0) {
                return beta;
            }
            zero[worst] = true;
        }
    }
}
