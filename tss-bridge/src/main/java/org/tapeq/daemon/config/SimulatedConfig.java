package org.tapeq.daemon.config;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.tapeq.config.ConfigNode;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.tape.sim.DataMode;

/**
 * The simulated library ({@code library.simulated:}). Its cartridges are {@code cartridges} barcodes
 * {@code <barcodePrefix><number><media suffix>}, six characters before the suffix.
 *
 * @param dir           where the tapes are recorded
 * @param data          real bytes, or only sizes
 * @param speed         time scale: 100 runs tape operations 100 times faster than real drives
 * @param drives        number of drives
 * @param media         cartridge and drive type
 * @param cartridges    number of cartridges
 * @param barcodePrefix 1 to 4 capital letters or digits
 * @param seed          seed of the cartridges' irregular geometry
 */
public record SimulatedConfig(Path dir, DataMode data, double speed, int drives, MediaType media, int cartridges,
                              String barcodePrefix, long seed) {

    static final String DIR = "dir";
    static final String DATA = "data";
    static final String SPEED = "speed";
    static final String DRIVES = "drives";
    static final String MEDIA = "media";
    static final String CARTRIDGES = "cartridges";
    static final String BARCODE_PREFIX = "barcodePrefix";
    static final String SEED = "seed";
    static final List<String> KEYS = List.of(DIR, DATA, SPEED, DRIVES, MEDIA, CARTRIDGES, BARCODE_PREFIX, SEED);

    /** The library's directory below the state directory when none is given. */
    static final String DEFAULT_DIR = "simlib";
    public static final DataMode DEFAULT_DATA = DataMode.BYTES;
    public static final double DEFAULT_SPEED = 1.0;
    public static final int DEFAULT_DRIVES = 4;
    public static final MediaType DEFAULT_MEDIA = MediaType.LTO9;
    public static final int DEFAULT_CARTRIDGES = 20;
    public static final String DEFAULT_BARCODE_PREFIX = "TQ";
    public static final long DEFAULT_SEED = 1;
    static final int MAX_DRIVES = 1000;
    /** Characters of a barcode before the media suffix (prefix and number). */
    static final int BARCODE_DIGITS_AND_PREFIX = 6;

    private static final Pattern PREFIX_SYNTAX = Pattern.compile("[A-Z0-9]{1,4}");

    static SimulatedConfig parse(ConfigNode sim, Path state) {
        sim.allow(KEYS);
        Path dir = sim.path(DIR, state.resolve(DEFAULT_DIR));
        DataMode data = sim.choice(DATA, DEFAULT_DATA);
        double speed = sim.number(SPEED, DEFAULT_SPEED, 0);
        int drives = (int) sim.integer(DRIVES, DEFAULT_DRIVES, 1, MAX_DRIVES);
        String mediaName = sim.string(MEDIA, null);
        MediaType media = mediaName == null ? DEFAULT_MEDIA : MediaType.byName(mediaName).orElseThrow(
                () -> sim.error(MEDIA, "\"" + mediaName + "\" is not one of " + MediaType.KNOWN.stream()
                        .map(SimulatedConfig::mediaName).collect(Collectors.joining(", "))));
        String prefix = sim.string(BARCODE_PREFIX, DEFAULT_BARCODE_PREFIX);
        if (!PREFIX_SYNTAX.matcher(prefix).matches()) {
            throw sim.error(BARCODE_PREFIX, "\"" + prefix + "\" must be 1 to 4 capital letters or digits");
        }
        long numbers = (long) Math.pow(10, BARCODE_DIGITS_AND_PREFIX - prefix.length());
        int cartridges = (int) sim.integer(CARTRIDGES, DEFAULT_CARTRIDGES, 1, Integer.MAX_VALUE);
        if (cartridges > numbers) {
            throw sim.error(CARTRIDGES, cartridges + " do not fit the numbers a " + prefix.length()
                    + "-character " + BARCODE_PREFIX + " leaves (" + numbers + ")");
        }
        long seed = sim.integer(SEED, DEFAULT_SEED, Long.MIN_VALUE, Long.MAX_VALUE);
        return new SimulatedConfig(dir, data, speed, drives, media, cartridges, prefix, seed);
    }

    /** How a media type is written in the file: {@code LTO9}. */
    private static String mediaName(MediaType media) {
        return media.name().replace("-", "").toUpperCase(Locale.ROOT);
    }

    void describe(YamlText out) {
        out.put(2, DIR, YamlText.quote(dir))
                .put(2, DATA, ConfigNode.yamlName(data))
                .put(2, SPEED, speed)
                .put(2, DRIVES, drives)
                .put(2, MEDIA, mediaName(media))
                .put(2, CARTRIDGES, cartridges)
                .put(2, BARCODE_PREFIX, YamlText.quote(barcodePrefix))
                .put(2, SEED, seed);
    }
}
