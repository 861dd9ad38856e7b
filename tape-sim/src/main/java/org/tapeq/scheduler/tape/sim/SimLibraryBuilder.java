package org.tapeq.scheduler.tape.sim;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.regex.Pattern;

import org.tapeq.scheduler.model.DriveType;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.time.EventLoop;

/**
 * Configures a {@link SimulatedLibrary}. Defaults: SIZE_ONLY in memory, block size 256 KiB, one robot arm with a
 * 12 s exchange, 2 s per filemark, no one-time calibration, seed 1, byte copies inline on the loop thread.
 * At least one drive is required.
 */
public final class SimLibraryBuilder {

    private static final Pattern BARCODE = Pattern.compile("[A-Za-z0-9]{1,32}");
    private static final Pattern DRIVE_ID = Pattern.compile("[A-Za-z0-9_.:-]{1,64}");

    final EventLoop loop;
    int blockSize = SimulatedLibrary.DEFAULT_BLOCK_SIZE;
    DataMode dataMode = DataMode.SIZE_ONLY;
    Path directory;
    final List<String> driveIds = new ArrayList<>();
    final Map<String, DriveType> driveTypes = new LinkedHashMap<>();
    final Map<String, CartridgeSpec> cartridges = new LinkedHashMap<>();
    int robotArms = 1;
    long exchangeMillis = SimulatedLibrary.DEFAULT_EXCHANGE_MILLIS;
    long seed = 1;
    Executor copyExecutor;
    TapeMarks tapeMarks = TapeMarks.synchronous(SimulatedLibrary.DEFAULT_FILEMARK_MILLIS);
    long calibrationMillis;
    boolean wrapEnds;
    int accessOrderLimit;
    PhysicsProfile physics = PhysicsProfile.NOMINAL;

    SimLibraryBuilder(EventLoop loop) {
        this.loop = Objects.requireNonNull(loop, "loop");
    }

    /** Bytes per tape block. */
    public SimLibraryBuilder blockSize(int bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("blockSize must be positive: " + bytes);
        }
        this.blockSize = bytes;
        return this;
    }

    /** BYTES mode: real bytes kept under {@code directory}, which survives re-opening. */
    public SimLibraryBuilder bytes(Path directory) {
        this.dataMode = DataMode.BYTES;
        this.directory = Objects.requireNonNull(directory, "directory");
        return this;
    }

    /** SIZE_ONLY mode, nothing kept after the library is gone. */
    public SimLibraryBuilder sizeOnly() {
        this.dataMode = DataMode.SIZE_ONLY;
        this.directory = null;
        return this;
    }

    /** SIZE_ONLY mode, with tape file lengths and drive contents kept under {@code directory}. */
    public SimLibraryBuilder sizeOnly(Path directory) {
        this.dataMode = DataMode.SIZE_ONLY;
        this.directory = Objects.requireNonNull(directory, "directory");
        return this;
    }

    /** Adds drives {@code drive<n>} for n = current count .. current count + count - 1. */
    public SimLibraryBuilder drives(int count) {
        int first = driveIds.size();
        for (int i = 0; i < count; i++) {
            drive("drive" + (first + i));
        }
        return this;
    }

    /** A drive of a generation: it mounts only the media {@link DriveType#mounts} allows. */
    public SimLibraryBuilder drive(String id, DriveType type) {
        drive(id);
        driveTypes.put(id, Objects.requireNonNull(type, "type"));
        return this;
    }

    public SimLibraryBuilder drive(String id) {
        if (!DRIVE_ID.matcher(id).matches() || driveIds.contains(id)) {
            throw new IllegalArgumentException("invalid or duplicate drive id: " + id);
        }
        driveIds.add(id);
        return this;
    }

    /** A cartridge whose media type is named by the barcode's last two characters (e.g. {@code A00001L9}). */
    public SimLibraryBuilder cartridge(String barcode) {
        MediaType media = MediaType.fromBarcode(barcode).orElseThrow(
                () -> new IllegalArgumentException("no known media type in barcode " + barcode));
        return cartridge(barcode, media);
    }

    public SimLibraryBuilder cartridge(String barcode, MediaType media) {
        return cartridge(barcode, media, media.capacityBytes());
    }

    /** A cartridge with a capacity other than its media's (e.g. small, to fill it quickly in a test). */
    public SimLibraryBuilder cartridge(String barcode, MediaType media, long capacityBytes) {
        if (!BARCODE.matcher(barcode).matches() || cartridges.containsKey(barcode)) {
            throw new IllegalArgumentException("invalid or duplicate barcode: " + barcode);
        }
        if (capacityBytes < media.wraps() * 1024L) {
            throw new IllegalArgumentException("capacity of " + barcode + " must be at least 1 KiB per wrap ("
                    + media.wraps() * 1024L + " bytes): " + capacityBytes);
        }
        cartridges.put(barcode, new CartridgeSpec(barcode, Objects.requireNonNull(media, "media"), capacityBytes));
        return this;
    }

    /** Adds {@code count} cartridges {@code <prefix><number><suffix>}, six characters before the media suffix. */
    public SimLibraryBuilder cartridges(String prefix, int count, MediaType media) {
        int digits = 6 - prefix.length();
        if (digits < 1 || count > Math.pow(10, digits)) {
            throw new IllegalArgumentException("prefix " + prefix + " leaves no room for " + count + " numbers");
        }
        for (int i = 0; i < count; i++) {
            cartridge(prefix + String.format("%0" + digits + "d", i) + media.barcodeSuffix(), media);
        }
        return this;
    }

    public SimLibraryBuilder robotArms(int arms) {
        if (arms <= 0) {
            throw new IllegalArgumentException("robotArms must be positive: " + arms);
        }
        this.robotArms = arms;
        return this;
    }

    /** Duration of one robot move between a slot and a drive. */
    public SimLibraryBuilder exchangeMillis(long millis) {
        this.exchangeMillis = requireNonNegative("exchangeMillis", millis);
        return this;
    }

    /** Seed of the cartridges' irregular geometry. */
    public SimLibraryBuilder seed(long seed) {
        this.seed = seed;
        return this;
    }

    /** The physical constants of the library (default {@link PhysicsProfile#NOMINAL}). */
    public SimLibraryBuilder physics(PhysicsProfile profile) {
        this.physics = Objects.requireNonNull(profile, "profile");
        return this;
    }

    /** Where BYTES-mode copies run (default: inline on the loop thread). */
    public SimLibraryBuilder copyExecutor(Executor executor) {
        this.copyExecutor = Objects.requireNonNull(executor, "executor");
        return this;
    }

    /** Time to write one synchronous filemark (buffer flush and back-hitch), after every tape file. */
    public SimLibraryBuilder filemarkMillis(long millis) {
        this.tapeMarks = TapeMarks.synchronous(requireNonNegative("filemarkMillis", millis));
        return this;
    }

    /** How tape marks are written: synchronous after every tape file, or buffered with a periodic flush. */
    public SimLibraryBuilder tapeMarks(TapeMarks marks) {
        this.tapeMarks = Objects.requireNonNull(marks, "marks");
        return this;
    }

    /**
     * One-time calibration on the first load of a cartridge this library (or its directory) has never loaded;
     * 0 (the default) turns it off. LTO-9: {@link SimulatedLibrary#LTO9_CALIBRATION_MILLIS}.
     */
    public SimLibraryBuilder newCartridgeCalibration(long millis) {
        this.calibrationMillis = requireNonNegative("newCartridgeCalibration", millis);
        return this;
    }

    /**
     * Whether the drives report each mounted cartridge's end-of-wrap positions (READ END OF WRAP POSITION, IBM LTO-7
     * and later; off by default, like the virtual labs' drives): the true ones of the simulated tape.
     */
    public SimLibraryBuilder reportsWrapEnds(boolean reports) {
        this.wrapEnds = reports;
        return this;
    }

    /**
     * Whether the drives compute a recommended access order (GENERATE / RECEIVE RECOMMENDED ACCESS ORDER:
     * enterprise and LTO-9 full-height drives) over at most {@code limit} ranges per request; 0 (the default): they
     * do not. The order is computed on the true layout and physics of the tape ({@code DriveAccessOrder}).
     */
    public SimLibraryBuilder accessOrderLimit(int limit) {
        this.accessOrderLimit = (int) requireNonNegative("accessOrderLimit", limit);
        return this;
    }

    /**
     * @throws IOException if the directory cannot be opened, was written with another data mode or block size,
     *                     or its recorded data do not match the configured cartridges
     */
    public SimulatedLibrary build() throws IOException {
        if (driveIds.isEmpty()) {
            throw new IllegalStateException("a simulated library needs at least one drive");
        }
        return new SimulatedLibrary(this);
    }

    private static long requireNonNegative(String name, long value) {
        if (value < 0) {
            throw new IllegalArgumentException(name + " must not be negative: " + value);
        }
        return value;
    }

    /** One configured cartridge. */
    record CartridgeSpec(String barcode, MediaType media, long capacity) {
    }
}
