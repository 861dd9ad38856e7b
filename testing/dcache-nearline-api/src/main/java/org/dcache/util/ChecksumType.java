package org.dcache.util;

import java.util.Locale;

/** Declaration compatible with dCache's {@code ChecksumType} enum (dcache-common). */
public enum ChecksumType {
    ADLER32(1, "ADLER32", 32),
    MD5_TYPE(2, "MD5", 128),
    MD4_TYPE(3, "MD4", 128),
    SHA1(4, "SHA-1", 160),
    SHA256(5, "SHA-256", 256),
    SHA512(6, "SHA-512", 512);

    private final int type;
    private final String name;
    private final int bits;

    ChecksumType(int type, String name, int bits) {
        this.type = type;
        this.name = name;
        this.bits = bits;
    }

    public static final ChecksumType getChecksumType(int type) {
        for (ChecksumType t : values()) {
            if (t.type == type) {
                return t;
            }
        }
        throw new IllegalArgumentException("No such checksum type: " + type);
    }

    public static final ChecksumType getChecksumType(String s) {
        for (ChecksumType t : values()) {
            if (t.name.equalsIgnoreCase(s)) {
                return t;
            }
        }
        try {
            return getChecksumType(Integer.parseInt(s));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("No such checksum type: " + s);
        }
    }

    public static final boolean isValid(String s) {
        for (ChecksumType t : values()) {
            if (t.name.toLowerCase(Locale.ROOT).equals(s.toLowerCase(Locale.ROOT))) {
                return true;
            }
        }
        return false;
    }

    public int getType() {
        return type;
    }

    public String getName() {
        return name;
    }

    public int getBits() {
        return bits;
    }

    public int getNibbles() {
        return bits / 4;
    }

    @Override
    public String toString() {
        return name;
    }
}
