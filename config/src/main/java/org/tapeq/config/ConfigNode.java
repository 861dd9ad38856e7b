package org.tapeq.config;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.stream.Collectors;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

/**
 * A map or list of the parsed YAML tree with its key path ({@code directories[0].path}), so that every error
 * and warning names the file and the key. The typed getters take the key and a default; a key holding null
 * ({@code key:} with no value) is the same as a key left out.
 */
public final class ConfigNode {

    private static final ObjectMapper YAML = YAMLMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    private final String source;
    private final String path;
    private final JsonNode node;

    private ConfigNode(String source, String path, JsonNode node) {
        this.source = source;
        this.path = path;
        this.node = node;
    }

    /**
     * The root map of a YAML document; syntax errors, duplicate keys, an empty file and a second document are
     * errors.
     */
    public static ConfigNode parse(String yaml, String source) {
        JsonNode tree;
        try {
            tree = YAML.readTree(yaml);
        } catch (JsonProcessingException e) {
            throw new ConfigException(source + ": " + syntaxError(e), e);
        }
        if (tree == null || tree.isMissingNode() || tree.isNull()) {
            throw new ConfigException(source + ": the file is empty; at least directories: must be given");
        }
        ConfigNode root = new ConfigNode(source, "", tree);
        if (!tree.isObject()) {
            throw root.error("the file must be a map of sections (directories:, scheduler:, ...), not a "
                    + type(tree));
        }
        return root;
    }

    /** An error at this node. */
    public ConfigException error(String message) {
        return new ConfigException(source + ": " + (path.isEmpty() ? "" : path + ": ") + message);
    }

    /** An error at {@code key} of this map. */
    public ConfigException error(String key, String message) {
        return new ConfigException(source + ": " + keyPath(key) + ": " + message);
    }

    /** A warning about {@code key} of this map, in the same form as an error. */
    public String warning(String key, String message) {
        return source + ": " + keyPath(key) + ": " + message;
    }

    /** Refuses any key not in {@code known}, suggesting the closest known key. */
    public void allow(Collection<String> known) {
        for (Iterator<String> keys = node.fieldNames(); keys.hasNext(); ) {
            String key = keys.next();
            if (!known.contains(key)) {
                String suggestion = closest(key, known);
                throw error(key, "unknown key" + (suggestion == null ? "" : " (did you mean " + suggestion + "?)")
                        + "; known here: " + String.join(", ", known));
            }
        }
    }

    public boolean has(String key) {
        return value(key) != null;
    }

    /** Whether {@code key} holds a map (rather than a single value or a list). */
    public boolean isMap(String key) {
        JsonNode v = value(key);
        return v != null && v.isObject();
    }

    /** Whether {@code key} holds false; YAML reads unquoted {@code off} and {@code no} as false. */
    public boolean isFalse(String key) {
        JsonNode v = value(key);
        return v != null && v.isBoolean() && !v.booleanValue();
    }

    /** The map at {@code key}; an empty map if left out. */
    public ConfigNode map(String key) {
        JsonNode v = value(key);
        if (v != null && !v.isObject()) {
            throw error(key, "must be a map (indented key: value lines), not a " + type(v));
        }
        return new ConfigNode(source, keyPath(key), v == null ? YAML.createObjectNode() : v);
    }

    /** The maps listed at {@code key}; empty if left out. */
    public List<ConfigNode> list(String key) {
        JsonNode v = value(key);
        if (v != null && !v.isArray()) {
            throw error(key, "must be a list (lines starting with -), not a " + type(v));
        }
        List<ConfigNode> items = new ArrayList<>();
        for (int i = 0; v != null && i < v.size(); i++) {
            ConfigNode item = new ConfigNode(source, keyPath(key) + "[" + i + "]", v.get(i));
            if (!v.get(i).isObject()) {
                throw item.error("must be a map (- key: value), not a " + type(v.get(i)));
            }
            items.add(item);
        }
        return items;
    }

    /** The string at {@code key}, or {@code defaultValue} (may be null) if left out; never blank. */
    public String string(String key, String defaultValue) {
        JsonNode v = value(key);
        if (v == null) {
            return defaultValue;
        }
        if (!v.isTextual()) {
            throw error(key, "must be a string, not a " + type(v) + " (quote it)");
        }
        if (v.textValue().isBlank()) {
            throw error(key, "must not be empty");
        }
        return v.textValue();
    }

    public String requiredString(String key) {
        String s = string(key, null);
        if (s == null) {
            throw error(key, "required");
        }
        return s;
    }

    /** An absolute path, normalised. */
    public Path path(String key, Path defaultValue) {
        String s = string(key, null);
        if (s == null) {
            return defaultValue;
        }
        try {
            Path p = Path.of(s);
            if (!p.isAbsolute()) {
                throw error(key, "must be an absolute path, not \"" + s + "\"");
            }
            return p.normalize();
        } catch (InvalidPathException e) {
            throw error(key, "\"" + s + "\" is not a valid path: " + e.getReason());
        }
    }

    /** Bytes, see {@link Units#parseSize}. */
    public long size(String key, long defaultValue) {
        return scalar(key, defaultValue, Units::parseSize);
    }

    /** Milliseconds, see {@link Units#parseDuration}. */
    public long duration(String key, long defaultValue) {
        return scalar(key, defaultValue, Units::parseDuration);
    }

    /**
     * A string or number, converted by {@code parser} (which reports bad syntax with an
     * {@link IllegalArgumentException} whose message the error carries).
     */
    public <T> T scalar(String key, T defaultValue, Function<String, T> parser) {
        JsonNode v = value(key);
        if (v == null) {
            return defaultValue;
        }
        if (!v.isTextual() && !v.isNumber()) {
            throw error(key, "must be a string or number, not a " + type(v));
        }
        try {
            return parser.apply(v.asText());
        } catch (IllegalArgumentException e) {
            throw error(key, e.getMessage());
        }
    }

    /** A whole number between {@code min} and {@code max}. */
    public long integer(String key, long defaultValue, long min, long max) {
        JsonNode v = value(key);
        if (v == null) {
            return defaultValue;
        }
        if (!v.isIntegralNumber() || !v.canConvertToLong()) {
            throw error(key, "must be a whole number, not " + describe(v));
        }
        if (v.longValue() < min || v.longValue() > max) {
            throw error(key, "must be " + range(min, max) + ", not " + v.longValue());
        }
        return v.longValue();
    }

    /** A finite number above {@code exclusiveMin}. */
    public double number(String key, double defaultValue, double exclusiveMin) {
        JsonNode v = value(key);
        if (v == null) {
            return defaultValue;
        }
        if (!v.isNumber() || !Double.isFinite(v.doubleValue())) {
            throw error(key, "must be a number, not " + describe(v));
        }
        if (!(v.doubleValue() > exclusiveMin)) {
            throw error(key, "must be > " + exclusiveMin + ", not " + v.doubleValue());
        }
        return v.doubleValue();
    }

    public boolean bool(String key, boolean defaultValue) {
        JsonNode v = value(key);
        if (v == null) {
            return defaultValue;
        }
        if (!v.isBoolean()) {
            throw error(key, "must be true or false, not " + describe(v));
        }
        return v.booleanValue();
    }

    /** One of the constants of {@code defaultValue}'s enum, written in lower case with '-' for '_'. */
    public <E extends Enum<E>> E choice(String key, E defaultValue) {
        String s = string(key, null);
        if (s == null) {
            return defaultValue;
        }
        List<String> names = new ArrayList<>();
        for (E e : defaultValue.getDeclaringClass().getEnumConstants()) {
            if (yamlName(e).equals(s)) {
                return e;
            }
            names.add(yamlName(e));
        }
        throw error(key, "\"" + s + "\" is not one of " + String.join(", ", names));
    }

    /** How an enum constant is written in the file. */
    public static String yamlName(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    private JsonNode value(String key) {
        JsonNode v = node.get(key);
        return v == null || v.isNull() ? null : v;
    }

    private String keyPath(String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    private static String range(long min, long max) {
        if (max >= Integer.MAX_VALUE) {
            return ">= " + min;
        }
        return "between " + min + " and " + max;
    }

    private static String describe(JsonNode v) {
        return v.isValueNode() ? v.toString() : "a " + type(v);
    }

    private static String type(JsonNode v) {
        return switch (v.getNodeType()) {
            case OBJECT -> "map";
            case ARRAY -> "list";
            default -> v.getNodeType().name().toLowerCase(Locale.ROOT);
        };
    }

    /**
     * "line L, column C: what", naming the key path for a duplicate key. SnakeYAML's messages are several lines,
     * with an excerpt of the file; the excerpt and its positions are left out.
     */
    private static String syntaxError(JsonProcessingException e) {
        JsonLocation at = e.getLocation();
        String where = at == null ? "" : "line " + at.getLineNr() + ", column " + at.getColumnNr() + ": ";
        if (e instanceof StreamReadException read && read.getProcessor() != null
                && e.getOriginalMessage().startsWith("Duplicate field")) {
            return pathOf(read.getProcessor().getParsingContext()) + ": duplicate key (" + where
                    + "a key may appear once)";
        }
        if (e.getOriginalMessage().startsWith("Trailing token")) {
            return where + "a second YAML document starts here; the file must hold one";
        }
        return where + e.getOriginalMessage().lines()
                .filter(line -> !line.isBlank() && !line.startsWith(" in ") && !line.startsWith("    "))
                .collect(Collectors.joining(": "));
    }

    private static String pathOf(JsonStreamContext context) {
        StringBuilder path = new StringBuilder();
        for (JsonStreamContext c = context; c != null && !c.inRoot(); c = c.getParent()) {
            if (c.inArray()) {
                path.insert(0, "[" + c.getCurrentIndex() + "]");
            } else {
                path.insert(0, (c.getParent().inRoot() ? "" : ".") + c.getCurrentName());
            }
        }
        return path.toString();
    }

    /** The known key closest in spelling to {@code key}, or null if none is close. */
    private static String closest(String key, Collection<String> known) {
        String wanted = key.toLowerCase(Locale.ROOT);
        String best = null;
        int bestDistance = Math.max(2, wanted.length() / 3) + 1;
        for (String candidate : known) {
            String c = candidate.toLowerCase(Locale.ROOT);
            int d = distance(wanted, c);
            if (wanted.length() >= 4 && (c.contains(wanted) || wanted.contains(c))) {
                d = Math.min(d, 1);
            }
            if (d < bestDistance) {
                best = candidate;
                bestDistance = d;
            }
        }
        return best;
    }

    /** Edit distance (insertions, deletions, substitutions). */
    private static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitute = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitute, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
