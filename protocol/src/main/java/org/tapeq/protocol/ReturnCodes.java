package org.tapeq.protocol;

/**
 * Return codes carried by error files and passed to dCache. dCache disables a pool on a stage failing with
 * 41, 42, 43 or 204 ({@code CacheException.ERROR_IO_DISK}), reports a stage failing with 210
 * ({@code CacheException.FILE_IN_CACHE}) as a success (both in {@code PoolV4.ReplyToPoolFetch.failed}), and
 * deactivates a flush failing with 30 to 39 (no automatic retry); every other code is reported and retried. A
 * per-file problem therefore never uses 41-43 or 204, and a failure never 210. See docs/protocol.md.
 */
public final class ReturnCodes {
    /** Unspecified failure; the ENDIT meaning of an error file without a numeric first line. Retried. */
    public static final int FAILED = 1;
    /** The file's data is not as recorded (size or checksum mismatch). Flushes are not retried. */
    public static final int DATA_MISMATCH = 31;
    /** The request itself is invalid (unknown file, bad attributes); retrying cannot help. */
    public static final int INVALID_REQUEST = 32;
    /** The file is not on tape or its tape copy is lost. */
    public static final int NOT_ON_TAPE = 33;

    /** dCache's stage codes that disable the whole pool. */
    public static final int POOL_NO_SPACE = 41;
    public static final int POOL_READ_ERROR = 42;
    public static final int POOL_WRITE_ERROR = 43;
    /** dCache's disk I/O error ({@code CacheException.ERROR_IO_DISK}): a stage failing with it disables the pool. */
    public static final int POOL_DISK_ERROR = 204;
    /** dCache's "pool already has the replica" ({@code CacheException.FILE_IN_CACHE}): a stage failing with it
     *  is reported as a success. */
    public static final int FILE_IN_CACHE = 210;

    private ReturnCodes() {
    }

    /** Whether dCache would disable the pool on this code; such codes are never used for one file. */
    public static boolean disablesPool(int rc) {
        return rc == POOL_NO_SPACE || rc == POOL_READ_ERROR || rc == POOL_WRITE_ERROR || rc == POOL_DISK_ERROR;
    }

    /**
     * Why dCache must not see {@code rc} as a file's failure, or null if it may: 0 and 210 would be taken as a
     * success, 41-43 and 204 would disable the pool.
     */
    public static String unfitForFailure(int rc) {
        if (rc == 0) {
            return "0 is not a failure code";
        }
        if (rc == FILE_IN_CACHE) {
            return "dCache would report 210 as a success";
        }
        if (disablesPool(rc)) {
            return "41-43 and 204 would disable the pool";
        }
        return null;
    }
}
