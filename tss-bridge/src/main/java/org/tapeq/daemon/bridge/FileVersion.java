package org.tapeq.daemon.bridge;

/**
 * A request file's identity ({@link Parsed#version}) kept in three numbers instead of a string when it has the
 * form the JDK gives on Linux, {@code (dev=HEX,ino=N)@MILLIS}: a directory may hold ten million requests, and the
 * string is the largest thing a queued request would keep. Any other form is kept as it is. Exact both ways: a
 * form is taken apart only if putting it together again gives the same string.
 */
final class FileVersion {

    private static final String DEV = "(dev=";
    private static final String INO = ",ino=";
    private static final String AT = ")@";

    private FileVersion() {
    }

    /** {@code v} as {dev, ino, millis}, or null if it has another form (or is null). */
    static long[] parse(String v) {
        if (v == null || !v.startsWith(DEV)) {
            return null;
        }
        int ino = v.indexOf(INO);
        int at = v.indexOf(AT);
        if (ino < 0 || at < ino) {
            return null;
        }
        try {
            long[] parts = {Long.parseUnsignedLong(v, DEV.length(), ino, 16),
                    Long.parseLong(v, ino + INO.length(), at, 10), Long.parseLong(v, at + AT.length(), v.length(), 10)};
            return format(parts[0], parts[1], parts[2]).equals(v) ? parts : null;
        } catch (NumberFormatException e) {
            return null;
        }
    }

    static String format(long dev, long ino, long millis) {
        return DEV + Long.toHexString(dev) + INO + ino + AT + millis;
    }
}
