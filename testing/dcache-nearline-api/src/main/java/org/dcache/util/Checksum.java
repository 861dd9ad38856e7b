package org.dcache.util;

import java.io.Serializable;
import java.util.Locale;
import java.util.Objects;

/**
 * Declaration compatible with dCache's {@code Checksum} (dcache-common): a checksum type and its value as
 * lower-case hex of exactly the type's length (adler32 values are left-padded to 8 digits).
 */
public class Checksum implements Serializable {
    private static final long serialVersionUID = 1L;

    private final ChecksumType type;
    private final String value;

    public Checksum(ChecksumType type, String value) {
        Objects.requireNonNull(type, "type");
        String normalised = value.trim().toLowerCase(Locale.ROOT);
        if (type == ChecksumType.ADLER32 && normalised.length() < 8) {
            normalised = "0".repeat(8 - normalised.length()) + normalised;
        }
        if (!isValid(type, normalised)) {
            throw new IllegalArgumentException("Invalid checksum value for " + type + ": " + value);
        }
        this.type = type;
        this.value = normalised;
    }

    public static boolean isValid(ChecksumType type, String value) {
        String v = value.trim();
        if (v.length() != type.getNibbles()) {
            return false;
        }
        for (int i = 0; i < v.length(); i++) {
            if (Character.digit(v.charAt(i), 16) < 0) {
                return false;
            }
        }
        return true;
    }

    public static Checksum parseChecksum(String s) {
        int colon = s.indexOf(':');
        if (colon < 1) {
            throw new IllegalArgumentException("Not a dCache checksum: " + s);
        }
        return new Checksum(ChecksumType.getChecksumType(s.substring(0, colon)), s.substring(colon + 1));
    }

    public ChecksumType getType() {
        return type;
    }

    public String getValue() {
        return value;
    }

    @Override
    public boolean equals(Object o) {
        if (o == null || o.getClass() != getClass()) {
            return false;
        }
        Checksum other = (Checksum) o;
        return type == other.type && value.equals(other.value);
    }

    @Override
    public int hashCode() {
        return value.hashCode() ^ type.hashCode();
    }

    @Override
    public String toString() {
        return type.getType() + ":" + value;
    }
}
