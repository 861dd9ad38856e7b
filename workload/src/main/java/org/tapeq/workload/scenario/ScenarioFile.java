package org.tapeq.workload.scenario;

import org.tapeq.workload.SimOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Pattern;

import org.tapeq.config.ConfigException;
import org.tapeq.config.ConfigNode;
import org.tapeq.config.Units;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.tape.sim.DataMode;
import org.tapeq.workload.SizeMix;
import org.tapeq.workload.Sizes;
import org.tapeq.workload.scenario.Experiment.Layout;
import org.tapeq.workload.scenario.Experiment.RecallOrder;
import org.tapeq.workload.scenario.Experiment.Simulation;

/**
 * Reads a scenario YAML file, the one format of {@code tapeq loadtest} and {@code tapeq simulate} (every key in the
 * table of docs/loadtest.md, "Scenarios"; docs/simulator.md says what the simulator makes of them). Every key is a
 * constant here and checked in this one place; an error is a {@link ConfigException} naming the file, the key path
 * and the reason; an unknown key is an error suggesting the closest known one. A key only one tool uses is read by
 * both and ignored by the other; what a tool requires is checked for the tool that reads ({@link Tool}). An adt
 * experiment's {@code inputs} path is relative to the scenario file's folder; {@code tapeq loadtest --inputs}
 * replaces it for every adt experiment (the same rules apply).
 */
public final class ScenarioFile {

    static final String NAME = "name";
    static final String TYPE = "type";
    static final String SEED = "seed";
    static final String TIMEOUT = "timeout";
    static final String LIBRARY = "library";
    static final String EXPERIMENTS = "experiments";
    static final String TARGETS = "targets";
    static final String DESCRIPTION = "description";
    static final String SCALE_FLOOR = "scaleFloor";
    static final List<String> KEYS = List.of(NAME, TYPE, SEED, TIMEOUT, LIBRARY, EXPERIMENTS, TARGETS, DESCRIPTION,
            SCALE_FLOOR, SimOptionsFile.FAULTS, SimOptionsFile.REPACK, SimOptionsFile.STAGE_BUFFER);

    static final String DRIVES = "drives";
    static final String CARTRIDGES = "cartridges";
    static final String MEDIA = "media";
    static final String SPEED = "speed";
    static final String DATA = "data";
    static final String ROBOT_ARMS = "robotArms";
    static final List<String> LIBRARY_KEYS = List.of(DRIVES, CARTRIDGES, MEDIA, SPEED, DATA, ROBOT_ARMS);

    static final String SHARE = "share";
    static final String ACTIVITY = "activity";
    static final String RATE = "rate";
    static final String DURATION = "duration";
    static final String DATASETS = "datasets";
    static final String FILES_PER_DATASET = "filesPerDataset";
    static final String SIZE = "size";
    static final String ORDER = "order";
    static final String MAX_OUTSTANDING = "maxOutstanding";
    static final String WINDOW = "window";
    static final String PROCESS_TIME = "processTime";
    static final String REQUESTS = "requests";
    static final String FILE_SIZE = "fileSize";
    static final String INPUTS = "inputs";
    // read by tapeq simulate only
    static final String GROUP = "group";
    static final String MAX_DRIVES = "maxDrives";
    static final String FILES = "files";
    static final String EXPERIMENT_CARTRIDGES = "cartridges";
    static final String BARCODES = "barcodes";
    static final String LAYOUT = "layout";
    static final String REQUEST_RATE = "requestRate";
    static final String START = "start";
    static final String SPREAD = "spread";
    static final List<String> EXPERIMENT_KEYS = List.of(NAME, SHARE, ACTIVITY, RATE, DURATION, DATASETS,
            FILES_PER_DATASET, SIZE, ORDER, MAX_OUTSTANDING, WINDOW, PROCESS_TIME, REQUESTS, FILE_SIZE, INPUTS, GROUP,
            MAX_DRIVES, FILES, EXPERIMENT_CARTRIDGES, BARCODES, LAYOUT, REQUEST_RATE, START, SPREAD);

    static final String MEDIAN = "median";
    static final String SIGMA = "sigma";
    static final String MIN = "min";
    static final String MAX = "max";
    static final String DISTRIBUTION = "distribution";
    static final String EITHER = "either";
    static final List<String> SIZE_KEYS = List.of(DISTRIBUTION, MEDIAN, SIGMA, MIN, MAX, EITHER);
    static final String LOG_NORMAL = "logNormal";
    static final String UNIFORM = "uniform";
    static final String LOG_UNIFORM = "logUniform";

    static final List<String> FLOOR_KEYS = List.of(FILES, CARTRIDGES, REQUESTS);

    static final String SUSTAINED_RATE = "sustainedRate";
    static final String RATE_WINDOW = "window";
    static final String MAX_LOST = "maxLost";
    static final String MAX_FAILED = "maxFailed";
    static final String MAX_P99 = "maxP99Latency";
    static final List<String> TARGET_KEYS = List.of(SUSTAINED_RATE, RATE_WINDOW, MAX_LOST, MAX_FAILED, MAX_P99);

    public static final String MIXED = "mixed";
    static final int DEFAULT_DRIVES = 4;
    static final int DEFAULT_CARTRIDGES = 40;
    static final double DEFAULT_SPEED = 100;
    static final long DEFAULT_TIMEOUT = 24 * 3_600_000L;
    /** ATLAS-like sizes: median 2 GB, from 10 kB to 10 GB (docs/loadtest.md). */
    static final SizeMix DEFAULT_SIZES = new SizeMix(2_000_000_000L, 1.0, 10_000, 10_000_000_000L);
    static final long DEFAULT_WINDOW = 600_000;
    static final int MAX_EXPERIMENTS = 100;
    static final int DEFAULT_ROBOT_ARMS = 2;
    /** Under --scale an experiment keeps at least 100 files, 2 cartridges and 20 requests unless the file says. */
    static final Scenario.ScaleFloor DEFAULT_FLOOR = new Scenario.ScaleFloor(100, 2, 20);
    static final int DEFAULT_FILES_PER_DT_DATASET = 500;
    private static final Pattern BARCODE_PREFIX = Pattern.compile("[A-Z0-9]{1,4}");
    private static final Pattern NAME_SYNTAX = Pattern.compile("[a-z][a-z0-9-]{0,15}");

    /** Which command reads the file: what it requires is checked, what only the other reads is ignored. */
    public enum Tool {
        /** {@code tapeq loadtest} */
        LOADTEST,
        /** {@code tapeq simulate} */
        SIMULATE
    }

    private ScenarioFile() {
    }

    /** Reads {@code file} for the load-test harness. */
    public static Scenario load(Path file) {
        return load(file, null);
    }

    /** Reads {@code file}; {@code inputs}, if not null, is every adt experiment's {@code inputs} (the command's). */
    public static Scenario load(Path file, Path inputs) {
        return parse(read(file), file.toString(), inputs, Tool.LOADTEST);
    }

    /** Reads {@code file} for the simulator. */
    public static Scenario loadForSimulation(Path file) {
        return parse(read(file), file.toString(), null, Tool.SIMULATE);
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (NoSuchFileException e) {
            throw new ConfigException(file + ": no such file");
        } catch (IOException e) {
            throw new ConfigException(file + ": cannot be read: " + e.getMessage(), e);
        }
    }

    public static Scenario parse(String yaml, String source) {
        return parse(yaml, source, null);
    }

    public static Scenario parse(String yaml, String source, Path inputs) {
        return parse(yaml, source, inputs, Tool.LOADTEST);
    }

    /** Parses {@code yaml} read from {@code source} for {@code tool}. */
    public static Scenario parse(String yaml, String source, Path inputs, Tool tool) {
        if (yaml.isBlank()) {
            throw new ConfigException(source + ": the file is empty; at least type: and experiments: must be given");
        }
        ConfigNode root = ConfigNode.parse(yaml, source);
        root.allow(KEYS);
        String type = root.requiredString(TYPE);
        List<String> types = new ArrayList<>();
        for (Activity a : Activity.values()) {
            types.add(ConfigNode.yamlName(a));
        }
        types.add(MIXED);
        if (!types.contains(type)) {
            throw root.error(TYPE, "\"" + type + "\" is not one of " + String.join(", ", types));
        }
        if (tool == Tool.SIMULATE && type.equals(ConfigNode.yamlName(Activity.BURST))) {
            throw root.error(TYPE, "tapeq simulate does not run a burst (an adt with requestRate is its burst)");
        }
        String name = root.string(NAME, type);
        long seed = root.integer(SEED, 1, Long.MIN_VALUE, Long.MAX_VALUE);
        long timeout = root.duration(TIMEOUT, DEFAULT_TIMEOUT);
        LibrarySettings library = library(root.map(LIBRARY));
        List<ConfigNode> nodes = root.list(EXPERIMENTS);
        if (nodes.isEmpty()) {
            throw root.error(EXPERIMENTS, "required: at least one experiment");
        }
        if (nodes.size() > MAX_EXPERIMENTS) {
            throw root.error(EXPERIMENTS, nodes.size() + " experiments; at most " + MAX_EXPERIMENTS);
        }
        List<Experiment> experiments = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (ConfigNode n : nodes) {
            Experiment e = experiment(n, type, source, inputs, tool);
            if (!names.add(e.name())) {
                throw n.error(NAME, "\"" + e.name() + "\" is used by two experiments");
            }
            experiments.add(e);
        }
        if (type.equals(MIXED) && experiments.size() < 2) {
            throw root.error(EXPERIMENTS, "a mixed scenario needs at least two experiments");
        }
        if (inputs != null && experiments.stream().noneMatch(e -> e.activity() == Activity.ADT)) {
            throw new ConfigException(source + ": --inputs " + inputs + " given, but no experiment is an adt (only an "
                    + "adt recalls what an earlier run wrote)");
        }
        long bursts = experiments.stream().filter(e -> e.activity() == Activity.BURST).count();
        if (bursts > 0 && experiments.size() > 1) {
            throw root.error(EXPERIMENTS, "a burst is one experiment alone (its files are written before the run)");
        }
        Targets targets = targets(root.map(TARGETS));
        String description = root.string(DESCRIPTION, "");
        Scenario.ScaleFloor floor = scaleFloor(root.map(SCALE_FLOOR));
        SimOptions options = SimOptionsFile.read(root, library.drives());
        return new Scenario(source, name, type, seed, library, experiments, targets, timeout, description, floor,
                options);
    }

    private static Scenario.ScaleFloor scaleFloor(ConfigNode n) {
        n.allow(FLOOR_KEYS);
        return new Scenario.ScaleFloor((int) n.integer(FILES, DEFAULT_FLOOR.files(), 1, Integer.MAX_VALUE),
                (int) n.integer(CARTRIDGES, DEFAULT_FLOOR.cartridges(), 1, 99_999),
                (int) n.integer(REQUESTS, DEFAULT_FLOOR.requests(), 1, Integer.MAX_VALUE));
    }

    private static LibrarySettings library(ConfigNode n) {
        n.allow(LIBRARY_KEYS);
        int drives = (int) n.integer(DRIVES, DEFAULT_DRIVES, 1, 1000);
        int cartridges = (int) n.integer(CARTRIDGES, DEFAULT_CARTRIDGES, 2, 99_999);
        String mediaName = n.string(MEDIA, "LTO9");
        MediaType media = MediaType.byName(mediaName).orElseThrow(() -> n.error(MEDIA, "\"" + mediaName
                + "\" is not a known media type (LTO7, LTO8, LTO9, ...)"));
        double speed = n.number(SPEED, DEFAULT_SPEED, 0);
        DataMode data = n.choice(DATA, DataMode.SIZE_ONLY);
        int robotArms = (int) n.integer(ROBOT_ARMS, DEFAULT_ROBOT_ARMS, 1, 100);
        return new LibrarySettings(drives, cartridges, media, speed, data, robotArms);
    }

    private static Experiment experiment(ConfigNode n, String type, String source, Path inputsGiven, Tool tool) {
        n.allow(EXPERIMENT_KEYS);
        String name = n.requiredString(NAME);
        if (!NAME_SYNTAX.matcher(name).matches()) {
            throw n.error(NAME, "\"" + name + "\" must be 1 to 16 lower-case letters, digits or '-', starting with a "
                    + "letter");
        }
        Activity activity;
        if (type.equals(MIXED)) {
            if (!n.has(ACTIVITY)) {
                throw n.error(ACTIVITY, "required in a mixed scenario (dt, adt, carousel)");
            }
            activity = n.choice(ACTIVITY, Activity.DT);
        } else {
            activity = Activity.valueOf(type.toUpperCase(Locale.ROOT));
            if (n.has(ACTIVITY) && n.choice(ACTIVITY, activity) != activity) {
                throw n.error(ACTIVITY, "must be " + type + " in a " + type + " scenario (or use type: mixed)");
            }
        }
        double share = n.number(SHARE, 1, 0);
        double rate = 0;
        long duration = 0;
        int datasets = 0;
        int filesPerDataset = 0;
        RecallOrder order = RecallOrder.DATASETS;
        int maxOutstanding = 0;
        double window = 0;
        long process = 0;
        int requests = 0;
        long fileSize = 0;
        Path inputs = null;
        Sizes sizes = sizes(n);
        int files = 0;
        Layout layout = Layout.COLOCATED;
        int simRequests = 0;
        double requestRate = 0;
        long start = 0;
        long spread = 0;
        int dtFilesPerDataset = 0;
        List<String> used = new ArrayList<>(List.of(NAME, SHARE, ACTIVITY, GROUP, MAX_DRIVES, EXPERIMENT_CARTRIDGES,
                BARCODES));
        switch (activity) {
            case DT -> {
                rate = required(n, RATE, () -> rate(n, RATE));
                duration = required(n, DURATION, () -> n.duration(DURATION, 0));
                datasets = (int) n.integer(DATASETS, 1, 1, 1_000_000);
                dtFilesPerDataset = (int) n.integer(FILES_PER_DATASET, DEFAULT_FILES_PER_DT_DATASET, 1, 10_000_000);
                used.addAll(List.of(RATE, DURATION, DATASETS, SIZE, FILES_PER_DATASET));
            }
            case ADT, CAROUSEL -> {
                if (activity == Activity.ADT && tool == Tool.SIMULATE && n.has(INPUTS)) {
                    throw n.error(INPUTS, "tapeq simulate cannot recall an earlier run's files (give datasets and "
                            + "filesPerDataset, or files)");
                }
                if (activity == Activity.ADT && (inputsGiven != null || n.has(INPUTS))) {
                    inputs = inputsGiven != null ? inputsGiven : inputs(n, source);
                    used.add(INPUTS);
                } else if (tool == Tool.SIMULATE && n.has(FILES)) {
                    files = (int) n.integer(FILES, 0, 1, 100_000_000);
                    used.add(FILES);
                    if (n.has(DATASETS) || n.has(FILES_PER_DATASET) || n.has(SIZE)) {
                        String k = n.has(DATASETS) ? DATASETS : n.has(FILES_PER_DATASET) ? FILES_PER_DATASET : SIZE;
                        throw n.error(k, "does not apply with files (ATLAS-like datasets of their own sizes)");
                    }
                } else {
                    String alternative = activity == Activity.ADT ? INPUTS : null;
                    datasets = required(n, DATASETS, alternative,
                            () -> n.integer(DATASETS, 0, 1, 1_000_000)).intValue();
                    filesPerDataset = required(n, FILES_PER_DATASET, alternative,
                            () -> n.integer(FILES_PER_DATASET, 0, 1, 10_000_000)).intValue();
                    used.addAll(List.of(DATASETS, FILES_PER_DATASET, SIZE));
                    if (tool == Tool.LOADTEST) {
                        used.add(FILES); // the simulator's alternative: ignored here
                    }
                }
                order = n.choice(ORDER, RecallOrder.DATASETS);
                layout = n.choice(LAYOUT, Layout.COLOCATED);
                used.addAll(List.of(ORDER, LAYOUT));
                if (activity == Activity.ADT) {
                    maxOutstanding = (int) n.integer(MAX_OUTSTANDING, 0, 0, Integer.MAX_VALUE);
                    simRequests = (int) n.integer(REQUESTS, 0, 1, Integer.MAX_VALUE);
                    requestRate = n.has(REQUEST_RATE) ? perSecond(n, REQUEST_RATE) : 0;
                    start = n.duration(START, 0);
                    spread = n.duration(SPREAD, 0);
                    if (requestRate > 0 && spread > 0) {
                        throw n.error(SPREAD, "does not apply with requestRate (requests come either at a rate or "
                                + "spread at random)");
                    }
                    used.addAll(List.of(MAX_OUTSTANDING, REQUESTS, REQUEST_RATE, START, SPREAD));
                } else {
                    window = required(n, WINDOW, () -> percent(n, WINDOW));
                    process = n.duration(PROCESS_TIME, 0);
                    used.addAll(List.of(WINDOW, PROCESS_TIME));
                }
            }
            case BURST -> {
                requests = required(n, REQUESTS, () -> n.integer(REQUESTS, 0, 1, 100_000_000)).intValue();
                fileSize = n.size(FILE_SIZE, 100_000);
                if (fileSize < 1) {
                    throw n.error(FILE_SIZE, "must be at least 1 byte");
                }
                used.addAll(List.of(REQUESTS, FILE_SIZE));
            }
            default -> throw new IllegalStateException(activity.toString());
        }
        for (String key : EXPERIMENT_KEYS) {
            if (!used.contains(key) && n.has(key)) {
                throw n.error(key, "does not apply to " + ConfigNode.yamlName(activity) + (inputs != null
                        ? " with inputs (the list gives the files)" : "") + " (applies: " + String.join(", ", used)
                        + ")");
            }
        }
        String group = n.string(GROUP, name);
        if (!NAME_SYNTAX.matcher(group).matches()) {
            throw n.error(GROUP, "\"" + group + "\" must be 1 to 16 lower-case letters, digits or '-', starting with "
                    + "a letter");
        }
        String barcodes = n.string(BARCODES, "");
        if (!barcodes.isEmpty() && !BARCODE_PREFIX.matcher(barcodes).matches()) {
            throw n.error(BARCODES, "\"" + barcodes + "\" must be 1 to 4 upper-case letters or digits");
        }
        Simulation sim = new Simulation(group, (int) n.integer(MAX_DRIVES, 0, 0, 1000), files,
                (int) n.integer(EXPERIMENT_CARTRIDGES, 0, 1, 99_999), barcodes, layout, simRequests, requestRate, start,
                spread, dtFilesPerDataset);
        return new Experiment(name, share, activity, rate, duration, datasets, filesPerDataset, sizes, order,
                maxOutstanding, window, process, requests, fileSize, inputs, sim);
    }

    /** The {@code inputs} path, relative to the folder of the scenario file {@code source}. */
    private static Path inputs(ConfigNode n, String source) {
        String s = n.string(INPUTS, null);
        try {
            Path folder = Path.of(source).getParent();
            return (folder == null ? Path.of(s) : folder.resolve(s)).normalize();
        } catch (InvalidPathException e) {
            throw n.error(INPUTS, "\"" + s + "\" is not a valid path: " + e.getReason());
        }
    }

    private static Sizes sizes(ConfigNode parent) {
        if (!parent.has(SIZE)) {
            return DEFAULT_SIZES;
        }
        if (!parent.isMap(SIZE)) {
            long size = parent.size(SIZE, 0);
            if (size < 1) {
                throw parent.error(SIZE, "must be at least 1 byte");
            }
            return new Sizes.Fixed(size);
        }
        return sizes(parent.map(SIZE), parent, SIZE);
    }

    /** The size map {@code n} (key {@code key} of {@code parent}, for errors about the whole). */
    private static Sizes sizes(ConfigNode n, ConfigNode parent, String key) {
        n.allow(SIZE_KEYS);
        if (n.has(EITHER)) {
            for (String k : SIZE_KEYS) {
                if (!k.equals(EITHER) && n.has(k)) {
                    throw n.error(k, "does not apply with either (each of the two gives its own)");
                }
            }
            List<ConfigNode> two = n.list(EITHER);
            if (two.size() != 2) {
                throw n.error(EITHER, "must list two size maps (each drawn with chance one half), not " + two.size());
            }
            return new Sizes.Either(sizes(two.get(0), n, EITHER), sizes(two.get(1), n, EITHER));
        }
        String distribution = n.string(DISTRIBUTION, LOG_NORMAL);
        try {
            switch (distribution) {
                case LOG_NORMAL -> {
                    long median = n.size(MEDIAN, DEFAULT_SIZES.median());
                    double sigma = n.has(SIGMA) ? n.number(SIGMA, 0, -Double.MIN_VALUE) : DEFAULT_SIZES.sigma();
                    long min = n.size(MIN, Math.min(DEFAULT_SIZES.min(), median));
                    long max = n.size(MAX, Math.max(DEFAULT_SIZES.max(), median));
                    return new SizeMix(median, sigma, min, max);
                }
                case UNIFORM, LOG_UNIFORM -> {
                    for (String k : List.of(MEDIAN, SIGMA)) {
                        if (n.has(k)) {
                            throw n.error(k, "does not apply to distribution " + distribution + " (min and max do)");
                        }
                    }
                    for (String k : List.of(MIN, MAX)) {
                        if (!n.has(k)) {
                            throw n.error(k, "required for distribution " + distribution);
                        }
                    }
                    long min = n.size(MIN, 0);
                    long max = n.size(MAX, 0);
                    return distribution.equals(UNIFORM) ? new Sizes.Uniform(min, max) : new Sizes.LogUniform(min, max);
                }
                default -> throw n.error(DISTRIBUTION, "\"" + distribution + "\" is not one of " + LOG_NORMAL + ", "
                        + UNIFORM + ", " + LOG_UNIFORM);
            }
        } catch (IllegalArgumentException e) {
            throw parent.error(key, e.getMessage());
        }
    }

    private static Targets targets(ConfigNode n) {
        n.allow(TARGET_KEYS);
        double rate = n.has(SUSTAINED_RATE) ? rate(n, SUSTAINED_RATE) : 0;
        long window = n.duration(RATE_WINDOW, DEFAULT_WINDOW);
        if (window <= 0) {
            throw n.error(RATE_WINDOW, "must be longer than 0");
        }
        long lost = n.integer(MAX_LOST, 0, 0, Long.MAX_VALUE);
        long failed = n.integer(MAX_FAILED, 0, 0, Long.MAX_VALUE);
        long p99 = n.duration(MAX_P99, 0);
        return new Targets(rate, window, lost, failed, p99);
    }

    /** Bytes per second written {@code 1GB/s} (or a plain size, read as per second). */
    static double rate(ConfigNode n, String key) {
        long bytes = n.scalar(key, 0L, s -> Units.parseSize(withoutSuffix(s, "/s")));
        if (bytes <= 0) {
            throw n.error(key, "must be more than 0 bytes per second (e.g. 1GB/s)");
        }
        return bytes;
    }

    /** Events per second written {@code 1000/s} (or a plain number, read as per second). */
    private static double perSecond(ConfigNode n, String key) {
        double v = suffixedNumber(n, key, "/s", "a rate per second (e.g. 1000/s)");
        if (!(v > 0)) {
            throw n.error(key, "must be more than 0 per second");
        }
        return v;
    }

    /** {@code 10%} or a number of percent, above 0 and at most 100. */
    private static double percent(ConfigNode n, String key) {
        double p = suffixedNumber(n, key, "%", "a percentage (e.g. 10%)");
        if (!(p > 0 && p <= 100)) {
            throw n.error(key, "must be above 0 % and at most 100 %, not " + p);
        }
        return p;
    }

    /** {@code key}'s number, written with or without {@code suffix}; an error says it is not {@code what}. */
    private static double suffixedNumber(ConfigNode n, String key, String suffix, String what) {
        return n.scalar(key, 0.0, s -> {
            try {
                return Double.parseDouble(withoutSuffix(s, suffix));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("\"" + s + "\" is not " + what, e);
            }
        });
    }

    /** {@code s} stripped, without a trailing {@code suffix} (and the blanks before it) if it has one. */
    private static String withoutSuffix(String s, String suffix) {
        String t = s.strip();
        return t.endsWith(suffix) ? t.substring(0, t.length() - suffix.length()).strip() : t;
    }

    private static <T extends Number> T required(ConfigNode n, String key, Supplier<T> value) {
        return required(n, key, null, value);
    }

    /** {@code key}'s value; if left out, an error naming {@code alternative} (a key that replaces it), if any. */
    private static <T extends Number> T required(ConfigNode n, String key, String alternative, Supplier<T> value) {
        if (!n.has(key)) {
            throw n.error(key, "required" + (alternative == null ? "" : " (or " + alternative + ": the report "
                    + "folder of an earlier dt, to recall what it wrote)"));
        }
        return value.get();
    }
}
