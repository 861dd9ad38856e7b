package org.tapeq.fuzz;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** One input for a parser: bytes, shown escaped so that a failing one can be copied into a regression test. */
public final class FuzzInput {
    private static final int SHOWN = 4000;

    private final byte[] bytes;

    public FuzzInput(byte[] bytes) {
        this.bytes = bytes.clone();
    }

    /** A copy of the bytes. */
    public byte[] bytes() {
        return bytes.clone();
    }

    /** The bytes decoded as UTF-8 (malformed sequences become U+FFFD), as a parser of text sees them. */
    public String text() {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    public int length() {
        return bytes.length;
    }

    /** The bytes as a Java string literal of ISO-8859-1 characters: {@code "...".getBytes(ISO_8859_1)} gives them back. */
    public String javaLiteral() {
        return javaLiteral(bytes.length);
    }

    private String javaLiteral(int max) {
        StringBuilder sb = new StringBuilder("\"");
        for (int i = 0; i < Math.min(max, bytes.length); i++) {
            int b = bytes[i] & 0xff;
            if (b == '"' || b == '\\') {
                sb.append('\\').append((char) b);
            } else if (b == '\n') {
                sb.append("\\n");
            } else if (b >= 0x20 && b < 0x7f) {
                sb.append((char) b);
            } else {
                sb.append(String.format("\\u%04x", b));
            }
        }
        return sb.append('"').toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FuzzInput && Arrays.equals(((FuzzInput) o).bytes, bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return bytes.length + " bytes: " + javaLiteral(SHOWN) + (bytes.length > SHOWN ? "..." : "");
    }
}
