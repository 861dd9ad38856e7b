package org.tapeq.fuzz;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Inputs made by mutating real samples of a format, the way a mutation fuzzer does: each input is one sample
 * with one to eight stacked edits (bit flips, byte changes, deleted, inserted, duplicated or repeated pieces,
 * tokens of the format from a dictionary, boundary numbers, truncation, and splices of two samples), now and
 * then plain random bytes. Mutating valid samples reaches the deep paths of a parser, which random bytes do
 * not; the dictionary gives it the format's keywords.
 *
 * <p>Design note: an input is a plain function of the {@link Random} handed in, so a run is repeated by its seed
 * ({@link Fuzz}). Nothing is shrunk: a failing input is reported as generated, and is small because the samples are.
 */
public final class Mutations {
    /** Numbers at the edges of int, long, and a few that are expensive or odd to parse. */
    private static final String[] NUMBERS = {"0", "-0", "-1", "1", "255", "256", "65536", "2147483647",
        "2147483648", "-2147483649", "4294967296", "9223372036854775807", "9223372036854775808",
        "-9223372036854775809", "99999999999999999999999999999999", "1e999999999", "-1e999999999", "1E-999999999",
        "0.5", "1.5e3", "0x10", "NaN", "Infinity", "00000000000000000000000000000001"};
    private static final byte[] INTERESTING = {0, 1, 0x7f, (byte) 0x80, (byte) 0xc0, (byte) 0xff, '\n', '\r', '\t',
        ' ', '"', '\'', '\\', '/', '{', '}', '[', ']', ':', ',', '-', '.', '0', '9', 'e', '=', '#', '&', '*', '!'};

    private final List<byte[]> seeds;
    private final List<byte[]> dictionary;
    private final int maxLength;

    private Mutations(List<byte[]> seeds, List<String> dictionary, int maxLength) {
        if (seeds.isEmpty()) {
            throw new IllegalArgumentException("no seeds");
        }
        this.seeds = List.copyOf(seeds);
        List<byte[]> dict = new ArrayList<>();
        for (String token : dictionary) {
            dict.add(token.getBytes(StandardCharsets.UTF_8));
        }
        for (String n : NUMBERS) {
            dict.add(n.getBytes(StandardCharsets.UTF_8));
        }
        this.dictionary = dict;
        this.maxLength = maxLength;
    }

    /**
     * Mutants of {@code seeds}, using the format's {@code dictionary} tokens; no input is longer than
     * {@code maxLength} bytes.
     */
    public static Mutations of(List<byte[]> seeds, List<String> dictionary, int maxLength) {
        return new Mutations(seeds, dictionary, maxLength);
    }

    /** The same for text samples, encoded as UTF-8. */
    public static Mutations ofText(List<String> seeds, List<String> dictionary, int maxLength) {
        List<byte[]> bytes = new ArrayList<>();
        for (String s : seeds) {
            bytes.add(s.getBytes(StandardCharsets.UTF_8));
        }
        return of(bytes, dictionary, maxLength);
    }

    /** Copies of the samples the inputs are made from (e.g. to seed another fuzzer's corpus). */
    public List<byte[]> seeds() {
        List<byte[]> copies = new ArrayList<>();
        for (byte[] seed : seeds) {
            copies.add(seed.clone());
        }
        return copies;
    }

    /** The next input. */
    public FuzzInput next(Random r) {
        return new FuzzInput(bytes(r));
    }

    private byte[] bytes(Random r) {
        int kind = r.nextInt(100);
        if (kind < 3) {
            return randomBytes(r, r.nextInt(65));
        }
        byte[] b = pick(seeds, r);
        if (kind < 5) {
            return b;
        }
        int edits = 1 + (r.nextBoolean() ? 0 : r.nextInt(r.nextBoolean() ? 3 : 8));
        for (int i = 0; i < edits; i++) {
            b = edit(b, r);
            if (b.length > maxLength) {
                b = slice(b, 0, maxLength);
            }
        }
        return b;
    }

    private byte[] edit(byte[] b, Random r) {
        int n = b.length;
        switch (r.nextInt(13)) {
            case 0:
                if (n > 0) {
                    b = b.clone();
                    b[r.nextInt(n)] ^= (byte) (1 << r.nextInt(8));
                }
                return b;
            case 1:
                if (n > 0) {
                    b = b.clone();
                    b[r.nextInt(n)] = (byte) r.nextInt(256);
                }
                return b;
            case 2:
                if (n > 0) {
                    b = b.clone();
                    b[r.nextInt(n)] = INTERESTING[r.nextInt(INTERESTING.length)];
                }
                return b;
            case 3: {
                int at = r.nextInt(n + 1);
                int len = Math.min(n - at, 1 + r.nextInt(r.nextBoolean() ? 4 : 64));
                return splice(b, at, len, new byte[0]);
            }
            case 4:
                return splice(b, r.nextInt(n + 1), 0, randomBytes(r, 1 + r.nextInt(8)));
            case 5: {
                int from = r.nextInt(n + 1);
                int len = Math.min(n - from, 1 + r.nextInt(64));
                return splice(b, r.nextInt(n + 1), 0, slice(b, from, from + len));
            }
            case 6:
            case 7:
                return splice(b, r.nextInt(n + 1), 0, pick(dictionary, r));
            case 8: {
                byte[] token = pick(dictionary, r);
                int at = r.nextInt(n + 1);
                return splice(b, at, Math.min(n - at, token.length), token);
            }
            case 9:
                return slice(b, 0, r.nextInt(n + 1));
            case 10: {
                byte[] other = pick(seeds, r);
                return concat(slice(b, 0, r.nextInt(n + 1)), slice(other, r.nextInt(other.length + 1), other.length));
            }
            case 11:
                return replaceNumber(b, r);
            default: {
                byte[] unit = r.nextBoolean() ? pick(dictionary, r) : randomBytes(r, 1 + r.nextInt(3));
                int times = 1 + r.nextInt(r.nextBoolean() ? 16 : 2000);
                byte[] run = new byte[Math.min(maxLength, unit.length * times)];
                for (int i = 0; i < run.length; i++) {
                    run[i] = unit[i % unit.length];
                }
                return splice(b, r.nextInt(n + 1), 0, run);
            }
        }
    }

    /** Replaces a run of digits (or, if there is none, a random place) with a boundary number. */
    private static byte[] replaceNumber(byte[] b, Random r) {
        int start = b.length == 0 ? 0 : r.nextInt(b.length);
        while (start < b.length && !isDigit(b[start])) {
            start++;
        }
        if (start == b.length) {
            start = b.length == 0 ? 0 : r.nextInt(b.length + 1);
        }
        int end = start;
        while (end < b.length && isDigit(b[end])) {
            end++;
        }
        return splice(b, start, end - start, NUMBERS[r.nextInt(NUMBERS.length)].getBytes(StandardCharsets.US_ASCII));
    }

    private static boolean isDigit(byte c) {
        return c >= '0' && c <= '9';
    }

    private static byte[] randomBytes(Random r, int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            int kind = r.nextInt(4);
            b[i] = kind == 0 ? (byte) r.nextInt(256)
                    : kind == 1 ? INTERESTING[r.nextInt(INTERESTING.length)] : (byte) (0x20 + r.nextInt(0x5f));
        }
        return b;
    }

    private static byte[] pick(List<byte[]> from, Random r) {
        return from.get(r.nextInt(from.size()));
    }

    private static byte[] slice(byte[] b, int from, int to) {
        byte[] out = new byte[to - from];
        System.arraycopy(b, from, out, 0, out.length);
        return out;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        return splice(a, a.length, 0, b);
    }

    /** {@code b} with {@code removed} bytes at {@code at} replaced by {@code inserted}. */
    private static byte[] splice(byte[] b, int at, int removed, byte[] inserted) {
        byte[] out = new byte[b.length - removed + inserted.length];
        System.arraycopy(b, 0, out, 0, at);
        System.arraycopy(inserted, 0, out, at, inserted.length);
        System.arraycopy(b, at + removed, out, at + inserted.length, b.length - at - removed);
        return out;
    }
}
