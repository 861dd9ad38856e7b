package org.tapeq.daemon.config;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import org.tapeq.config.ConfigNode;
import org.tapeq.config.Units;

/**
 * One ENDIT-style request directory the daemon serves (an entry of {@code directories:}).
 *
 * @param path             absolute base directory (in/, out/, request/ and trash/ below it)
 * @param name             unique short name for logs, metrics and status
 * @param group            fair-share group of its requests, or null: derived from the storage class
 * @param stageBufferBytes bytes the daemon may keep in in/ (staged, not yet taken by the pool)
 * @param reserve          free space kept on the filesystem of in/
 */
public record DirectoryConfig(Path path, String name, String group, long stageBufferBytes, Reserve reserve) {

    static final String PATH = "path";
    static final String NAME = "name";
    static final String GROUP = "group";
    static final String STAGE_BUFFER = "stageBuffer";
    static final String STAGE_BUFFER_RESERVE = "stageBufferReserve";
    static final List<String> KEYS = List.of(PATH, NAME, GROUP, STAGE_BUFFER, STAGE_BUFFER_RESERVE);

    public static final long DEFAULT_STAGE_BUFFER_BYTES = 100L << 30;
    public static final Reserve DEFAULT_RESERVE = new Reserve(5, 0);

    private static final Pattern NAME_SYNTAX = Pattern.compile("[A-Za-z0-9._-]+");

    /**
     * Free space to keep: a percentage of the filesystem or a number of bytes, the other 0.
     *
     * @param percent 0 to below 100
     * @param bytes   0 or more
     */
    public record Reserve(double percent, long bytes) {
        @Override
        public String toString() {
            return percent > 0 ? BigDecimal.valueOf(percent).stripTrailingZeros().toPlainString() + "%"
                    : Units.formatSize(bytes);
        }
    }

    /** Bytes to keep free on a filesystem of {@code filesystemTotal} bytes. */
    public long reserveBytes(long filesystemTotal) {
        return reserve.bytes() + (long) (filesystemTotal * reserve.percent() / 100);
    }

    /** The fair-share group of a request with this storage class: the configured one, else the text before ':'. */
    public String groupOf(String storageClass) {
        return groupOf(group, storageClass);
    }

    /** Requests with neither a configured group nor a storage class. */
    public static final String DEFAULT_GROUP = "default";

    /**
     * The fair-share group of a request: the directory's configured group, else its storage class up to the
     * first ':' ({@code atlas:raw} is {@code atlas}), else {@link #DEFAULT_GROUP}.
     */
    public static String groupOf(String configured, String storageClass) {
        if (configured != null) {
            return configured;
        }
        if (storageClass == null || storageClass.isEmpty()) {
            return DEFAULT_GROUP;
        }
        int colon = storageClass.indexOf(':');
        return colon <= 0 ? storageClass : storageClass.substring(0, colon);
    }

    /** The entries of {@code directories:}, checked to be distinct, not nested and uniquely named. */
    static List<DirectoryConfig> parseAll(List<ConfigNode> items) {
        List<DirectoryConfig> directories = new ArrayList<>();
        for (ConfigNode item : items) {
            DirectoryConfig d = parse(item);
            for (int i = 0; i < directories.size(); i++) {
                DirectoryConfig other = directories.get(i);
                String entry = "directories[" + i + "]";
                if (d.path.equals(other.path)) {
                    throw item.error(PATH, "\"" + d.path + "\" is also the path of " + entry);
                }
                if (d.path.startsWith(other.path) || other.path.startsWith(d.path)) {
                    throw item.error(PATH, "\"" + d.path + "\" and the path of " + entry + " (\"" + other.path
                            + "\") are nested; request directories must be apart");
                }
                if (d.name.equals(other.name)) {
                    throw item.error(NAME, "\"" + d.name + "\" is also the name of " + entry
                            + (item.has(NAME) ? "" : " (by default the last path element; give a name)"));
                }
            }
            directories.add(d);
        }
        return List.copyOf(directories);
    }

    private static DirectoryConfig parse(ConfigNode item) {
        item.allow(KEYS);
        Path path = item.path(PATH, null);
        if (path == null) {
            throw item.error(PATH, "required (the request directory, with in/, out/, request/ and trash/)");
        }
        if (path.getFileName() == null) {
            throw item.error(PATH, "must be a directory below /");
        }
        String name = item.string(NAME, path.getFileName().toString());
        if (!NAME_SYNTAX.matcher(name).matches()) {
            throw item.error(NAME, "\"" + name + "\" may contain only letters, digits, '.', '_' and '-'"
                    + (item.has(NAME) ? "" : " (by default the last path element; give a name)"));
        }
        String group = item.string(GROUP, null);
        long stageBuffer = item.size(STAGE_BUFFER, DEFAULT_STAGE_BUFFER_BYTES);
        if (stageBuffer == 0) {
            throw item.error(STAGE_BUFFER, "must be more than 0");
        }
        Reserve reserve = item.scalar(STAGE_BUFFER_RESERVE, DEFAULT_RESERVE, DirectoryConfig::reserve);
        return new DirectoryConfig(path, name, group, stageBuffer, reserve);
    }

    private static Reserve reserve(String text) {
        if (!text.strip().endsWith("%")) {
            return new Reserve(0, Units.parseSize(text));
        }
        double percent;
        try {
            percent = new BigDecimal(text.strip().replaceFirst("\\s*%$", "")).doubleValue();
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("\"" + text + "\" is not a percentage or a size (examples: 5%, 100GiB)");
        }
        if (!(percent >= 0 && percent < 100)) {
            throw new IllegalArgumentException("\"" + text + "\": a percentage must be from 0 to below 100");
        }
        return new Reserve(percent, 0);
    }

    void describe(YamlText out) {
        out.item(1, PATH, YamlText.quote(path)).put(2, NAME, YamlText.quote(name));
        if (group != null) {
            out.put(2, GROUP, YamlText.quote(group));
        }
        out.put(2, STAGE_BUFFER, Units.formatSize(stageBufferBytes)).put(2, STAGE_BUFFER_RESERVE, reserve);
    }
}
