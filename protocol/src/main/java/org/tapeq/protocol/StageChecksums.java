package org.tapeq.protocol;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The content of a checksum file, {@code in/<pnfsid>.checksum}: one {@code <type>:<hex value>} per line,
 * with dCache's lower-case type names ({@code adler32}, {@code md5}, ...). A tapeq daemon writes it before
 * the staged file appears in {@code in/}, so its presence also tells the provider the data was delivered
 * atomically.
 */
public final class StageChecksums {
    private StageChecksums() {
    }

    /** Parses checksum-file content into type to value, both lower case, in file order. */
    public static Map<String, String> parse(String file, byte[] content) throws ProtocolException {
        Map<String, String> checksums = new LinkedHashMap<>();
        String[] lines = new String(content, StandardCharsets.UTF_8).split("\n");
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty()) {
                continue;
            }
            int colon = line.indexOf(':');
            String type = colon <= 0 ? "" : line.substring(0, colon).strip().toLowerCase(Locale.ROOT);
            String value = colon <= 0 ? "" : line.substring(colon + 1).strip().toLowerCase(Locale.ROOT);
            if (type.isEmpty() || !isName(type) || !isHex(value)) {
                throw new ProtocolException(file, "line " + (i + 1) + " is not '<type>:<hex value>': '"
                        + abbreviate(line) + "'");
            }
            if (checksums.put(type, value) != null) {
                throw new ProtocolException(file, "line " + (i + 1) + " repeats checksum type " + type);
            }
        }
        if (checksums.isEmpty()) {
            throw new ProtocolException(file, "has no checksum");
        }
        return Collections.unmodifiableMap(checksums);
    }

    /** The on-disk form of {@code checksums} (type to hex value). */
    public static byte[] format(Map<String, String> checksums) {
        StringBuilder sb = new StringBuilder();
        checksums.forEach((type, value) -> sb.append(type.toLowerCase(Locale.ROOT)).append(':')
                .append(value.toLowerCase(Locale.ROOT)).append('\n'));
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static boolean isName(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!(c >= 'a' && c <= 'z') && !(c >= '0' && c <= '9') && c != '_' && c != '-') {
                return false;
            }
        }
        return true;
    }

    private static boolean isHex(String s) {
        if (s.isEmpty() || s.length() > 128) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!(c >= '0' && c <= '9') && !(c >= 'a' && c <= 'f')) {
                return false;
            }
        }
        return true;
    }

    private static String abbreviate(String s) {
        return s.length() <= 80 ? s : s.substring(0, 80) + "...";
    }
}
