package org.tapeq.daemon.config;

import com.fasterxml.jackson.core.io.JsonStringEncoder;

/** Writes the effective configuration as YAML, two spaces per level; the result parses back to the same values. */
final class YamlText {

    private final StringBuilder text = new StringBuilder();

    /** {@code key: value} (value already in YAML syntax), or the head {@code key:} of a section if value is null. */
    YamlText put(int depth, String key, Object value) {
        text.append("  ".repeat(depth)).append(key).append(':');
        if (value != null) {
            text.append(' ').append(value);
        }
        text.append('\n');
        return this;
    }

    /** The first key of a list item, {@code - key: value}; its other keys follow at {@code depth + 1}. */
    YamlText item(int depth, String key, Object value) {
        text.append("  ".repeat(depth)).append("- ");
        return put(0, key, value);
    }

    /** A double-quoted YAML string (JSON escapes are valid YAML escapes). */
    static String quote(Object value) {
        return '"' + new String(JsonStringEncoder.getInstance().quoteAsString(String.valueOf(value))) + '"';
    }

    @Override
    public String toString() {
        return text.toString();
    }
}
