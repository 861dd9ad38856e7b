package org.tapeq.protocol;

/**
 * The names of request files: a pnfsid is a non-empty string of hexadecimal digits ({@code ^[0-9A-Fa-f]+$}).
 * Every other name in a protocol directory (temporary files, {@code .err} and {@code .checksum} files) must
 * contain a character outside that set, because daemons treat every matching name as a request.
 */
public final class PnfsIds {
    /** Longer than any real pnfsid (Chimera ids have 36 digits); bounds what hostile names can cost. */
    public static final int MAX_LENGTH = 64;

    private PnfsIds() {
    }

    /** Whether {@code name} is a request name: 1 to {@value #MAX_LENGTH} hexadecimal digits. */
    public static boolean isPnfsId(String name) {
        int n = name.length();
        if (n == 0 || n > MAX_LENGTH) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            char c = name.charAt(i);
            boolean hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
            if (!hex) {
                return false;
            }
        }
        return true;
    }

    /**
     * Returns {@code name} if it is a pnfsid, else throws an {@link IllegalArgumentException} naming it;
     * used wherever a name becomes part of a path, so that no path trick gets through.
     */
    public static String requirePnfsId(String name) {
        if (name == null || !isPnfsId(name)) {
            throw new IllegalArgumentException("not a pnfsid (expected 1-" + MAX_LENGTH
                    + " hexadecimal digits): '" + name + "'");
        }
        return name;
    }
}
