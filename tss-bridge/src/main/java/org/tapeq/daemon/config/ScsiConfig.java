package org.tapeq.daemon.config;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

import org.tapeq.config.ConfigNode;
import org.tapeq.config.Units;
import org.tapeq.scheduler.model.DriveType;
import org.tapeq.scheduler.tape.scsi.ScsiSettings;

/**
 * The SCSI backend ({@code library.scsi:}): a real library driven with {@code mtx}, {@code mt} and {@code dd}
 * (docs/scsi-backend.md). Devices are paths on the tape host, which is this host unless {@code commandPrefix}
 * reaches another one.
 *
 * @param changer            the changer device for {@code mtx -f}
 * @param drives             the drives
 * @param commandPrefix      words run before every command line (e.g. {@code ssh tapehost}); empty = local
 * @param robotTimeoutMillis limit of one {@code mtx} command
 * @param tapeTimeoutMillis  limit of one {@code mt} command
 * @param dataStallMillis    a transfer with no byte moving for this long is abandoned
 * @param dataMinRate        bytes per second a transfer moves at least: it ends after its size at this rate
 *                           plus {@code dataStall}
 */
public record ScsiConfig(String changer, List<ScsiSettings.Drive> drives, List<String> commandPrefix,
                         long robotTimeoutMillis, long tapeTimeoutMillis, long dataStallMillis, long dataMinRate) {

    static final String CHANGER = "changer";
    static final String DRIVES = "drives";
    static final String COMMAND_PREFIX = "commandPrefix";
    static final String ROBOT_TIMEOUT = "robotTimeout";
    static final String TAPE_TIMEOUT = "tapeTimeout";
    static final String DATA_STALL = "dataStall";
    static final String DATA_MIN_RATE = "dataMinRate";
    static final List<String> KEYS = List.of(CHANGER, DRIVES, COMMAND_PREFIX, ROBOT_TIMEOUT, TAPE_TIMEOUT,
            DATA_STALL, DATA_MIN_RATE);
    static final String DRIVE_NAME = "name";
    static final String DRIVE_DEVICE = "device";
    static final String DRIVE_CHANGER_INDEX = "changerIndex";
    /** The drive's generation (LTO-8, LTO-9, TS1160), overriding what its INQUIRY says; optional. */
    static final String DRIVE_TYPE = "type";
    static final List<String> DRIVE_KEYS = List.of(DRIVE_NAME, DRIVE_DEVICE, DRIVE_CHANGER_INDEX, DRIVE_TYPE);

    private static final Pattern NAME_SYNTAX = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");
    static final int MAX_CHANGER_INDEX = 9999;

    /** Reads {@code library.scsi:}; {@code required} when the backend is scsi (otherwise it may be left out). */
    static ScsiConfig parse(ConfigNode scsi, boolean required) {
        scsi.allow(KEYS);
        String changer = required ? scsi.requiredString(CHANGER) : scsi.string(CHANGER, null);
        List<ConfigNode> items = scsi.list(DRIVES);
        if (required && items.isEmpty()) {
            throw scsi.error(DRIVES, "required: list the drives (- name: drive0, device: /dev/nst0)");
        }
        List<ScsiSettings.Drive> drives = new ArrayList<>();
        Set<String> names = new HashSet<>();
        Set<String> devices = new HashSet<>();
        Set<Long> indexes = new HashSet<>();
        for (int i = 0; i < items.size(); i++) {
            ConfigNode d = items.get(i);
            d.allow(DRIVE_KEYS);
            String name = d.requiredString(DRIVE_NAME);
            if (!NAME_SYNTAX.matcher(name).matches()) {
                throw d.error(DRIVE_NAME, "\"" + name + "\" must be 1-64 letters, digits, '_', '.' or '-', starting"
                        + " with a letter or digit");
            }
            String device = d.requiredString(DRIVE_DEVICE);
            long index = d.integer(DRIVE_CHANGER_INDEX, i, 0, MAX_CHANGER_INDEX);
            if (!names.add(name)) {
                throw d.error(DRIVE_NAME, "\"" + name + "\" is used by another drive");
            }
            if (!devices.add(device)) {
                throw d.error(DRIVE_DEVICE, device + " is used by another drive");
            }
            if (!indexes.add(index)) {
                throw d.error(DRIVE_CHANGER_INDEX, index + " is used by another drive (mtx numbers drives 0, 1, ...;"
                        + " by default a drive's position in this list)");
            }
            String typeName = d.string(DRIVE_TYPE, null);
            DriveType type = typeName == null ? null : DriveType.byName(typeName).orElseThrow(() -> d.error(DRIVE_TYPE,
                    "\"" + typeName + "\" is not a drive type tapeq knows ("
                    + String.join(", ", DriveType.KNOWN.stream().map(DriveType::name).toList())
                    + "); leave it out and the drive's INQUIRY tells"));
            drives.add(new ScsiSettings.Drive(name, device, (int) index, type));
        }
        String prefix = scsi.string(COMMAND_PREFIX, null);
        List<String> words = prefix == null ? List.of() : Arrays.asList(prefix.strip().split("\\s+"));
        long robot = positive(scsi, ROBOT_TIMEOUT, ScsiSettings.DEFAULT_ROBOT_TIMEOUT_MILLIS);
        long tape = positive(scsi, TAPE_TIMEOUT, ScsiSettings.DEFAULT_TAPE_TIMEOUT_MILLIS);
        long stall = positive(scsi, DATA_STALL, ScsiSettings.DEFAULT_DATA_STALL_MILLIS);
        long rate = scsi.size(DATA_MIN_RATE, ScsiSettings.DEFAULT_DATA_MIN_RATE);
        if (rate < ScsiSettings.MIN_DATA_MIN_RATE || rate > ScsiSettings.MAX_DATA_MIN_RATE) {
            throw scsi.error(DATA_MIN_RATE, Units.formatSize(rate) + " bytes per second must be between "
                    + Units.formatSize(ScsiSettings.MIN_DATA_MIN_RATE) + " and "
                    + Units.formatSize(ScsiSettings.MAX_DATA_MIN_RATE));
        }
        return new ScsiConfig(changer, drives, words, robot, tape, stall, rate);
    }

    private static long positive(ConfigNode scsi, String key, long defaultValue) {
        long v = scsi.duration(key, defaultValue);
        if (v <= 0) {
            throw scsi.error(key, "must be longer than 0");
        }
        return v;
    }

    /** The backend's settings with the library's block size. */
    public ScsiSettings settings(int blockSize) {
        return new ScsiSettings(changer, drives, blockSize, commandPrefix, robotTimeoutMillis, tapeTimeoutMillis,
                dataStallMillis, dataMinRate);
    }

    void describe(YamlText out) {
        out.put(1, LibraryConfig.SCSI, null);
        if (changer != null) {
            out.put(2, CHANGER, YamlText.quote(changer));
        }
        if (!drives.isEmpty()) {
            out.put(2, DRIVES, null);
        }
        for (ScsiSettings.Drive d : drives) {
            out.item(3, DRIVE_NAME, YamlText.quote(d.name()))
                    .put(4, DRIVE_DEVICE, YamlText.quote(d.device()))
                    .put(4, DRIVE_CHANGER_INDEX, d.changerIndex());
            if (d.type() != null) {
                out.put(4, DRIVE_TYPE, YamlText.quote(d.type().name()));
            }
        }
        if (!commandPrefix.isEmpty()) {
            out.put(2, COMMAND_PREFIX, YamlText.quote(String.join(" ", commandPrefix)));
        }
        out.put(2, ROBOT_TIMEOUT, Units.formatDuration(robotTimeoutMillis))
                .put(2, TAPE_TIMEOUT, Units.formatDuration(tapeTimeoutMillis))
                .put(2, DATA_STALL, Units.formatDuration(dataStallMillis))
                .put(2, DATA_MIN_RATE, Units.formatSize(dataMinRate));
    }
}
