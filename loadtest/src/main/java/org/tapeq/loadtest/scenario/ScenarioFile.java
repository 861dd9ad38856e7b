package org.tapeq.loadtest.scenario;

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

import org.tapeq.daemon.config.ConfigException;
import org.tapeq.daemon.config.ConfigNode;
import org.tapeq.daemon.config.Units;
import org.tapeq.loadtest.scenario.Experiment.RecallOrder;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.tape.sim.DataMode;

/**
 * Reads a scenario YAML file (documented in docs/loadtest.md). Every key is a constant here and checked in this one
 * place; an error is a {@link ConfigException} naming the file, the key path and the reason. An adt experiment's
 * {@code inputs} path is relative to the scenario file's folder; {@code tapeq loadtest --inputs} replaces it for
 * every adt experiment (the same rules apply).
 */
public final class ScenarioFile {

    static final String NAME = "name";
    static final String TYPE = "type";
    static final String SEED = "seed";
    static final String TIMEOUT = "timeout";
    static final String LIBRARY = "library";
    static final String EXPERIMENTS = "experiments";
    static final String TARGETS = "targets";
    static final List<String> KEYS = List.of(NAME, TYPE, SEED, TIMEOUT, LIBRARY, EXPERIMENTS, TARGETS);

    static final String DRIVES = "drives";
    static final String CARTRIDGES = "cartridges";
    static final String MEDIA = "media";
    static final String SPEED = "speed";
    static final String DATA = "data";
    static final List<String> LIBRARY_KEYS = List.of(DRIVES, CARTRIDGES, MEDIA, SPEED, DATA);

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
    static final List<String> EXPERIMENT_KEYS = List.of(NAME, SHARE, ACTIVITY, RATE, DURATION, DATASETS,
            FILES_PER_DATASET, SIZE, ORDER, MAX_OUTSTANDING, WINDOW, PROCESS_TIME, REQUESTS, FILE_SIZE, INPUTS);

    static final String MEDIAN = "median";
    static final String SIGMA = "sigma";
    static final String MIN = "min";
    static final String MAX = "max";
    static final List<String> SIZE_KEYS = List.of(MEDIAN, SIGMA, MIN, MAX);

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
    private static final Pattern NAME_SYNTAX = Pattern.compile("[a-z][a-z0-9-]{0,15}");

    private ScenarioFile() {
    }

    public static Scenario load(Path file) {
        return load(file, null);
    }

    /** Reads {@code file}; {@code inputs}, if not null, is every adt experiment's {@code inputs} (the command's). */
    public static Scenario load(Path file, Path inputs) {
        String text;
        try {
            text = Files.readString(file);
        } catch (NoSuchFileException e) {
            throw new ConfigException(file + ": no such file");
        } catch (IOException e) {
            throw new ConfigException(file + ": cannot be read: " + e.getMessage(), e);
        }
        return parse(text, file.toString(), inputs);
    }

    public static Scenario parse(String yaml, String source) {
        return parse(yaml, source, null);
    }

    public static Scenario parse(String yaml, String source, Path inputs) {
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
            Experiment e = experiment(n, type, source, inputs);
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
        return new Scenario(source, name, type, seed, library, experiments, targets, timeout);
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
        return new LibrarySettings(drives, cartridges, media, speed, data);
    }

    private static Experiment experiment(ConfigNode n, String type, String source, Path inputsGiven) {
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
        SizeMix sizes = sizes(n);
        List<String> used = new ArrayList<>(List.of(NAME, SHARE, ACTIVITY));
        switch (activity) {
            case DT -> {
                rate = required(n, RATE, () -> rate(n, RATE));
                duration = required(n, DURATION, () -> n.duration(DURATION, 0));
                datasets = (int) n.integer(DATASETS, 1, 1, 1_000_000);
                used.addAll(List.of(RATE, DURATION, DATASETS, SIZE));
            }
            case ADT, CAROUSEL -> {
                if (activity == Activity.ADT && (inputsGiven != null || n.has(INPUTS))) {
                    inputs = inputsGiven != null ? inputsGiven : inputs(n, source);
                    used.add(INPUTS);
                } else {
                    String alternative = activity == Activity.ADT ? INPUTS : null;
                    datasets = required(n, DATASETS, alternative,
                            () -> n.integer(DATASETS, 0, 1, 1_000_000)).intValue();
                    filesPerDataset = required(n, FILES_PER_DATASET, alternative,
                            () -> n.integer(FILES_PER_DATASET, 0, 1, 10_000_000)).intValue();
                    used.addAll(List.of(DATASETS, FILES_PER_DATASET, SIZE));
                }
                order = n.choice(ORDER, RecallOrder.DATASETS);
                used.add(ORDER);
                if (activity == Activity.ADT) {
                    maxOutstanding = (int) n.integer(MAX_OUTSTANDING, 0, 0, Integer.MAX_VALUE);
                    used.add(MAX_OUTSTANDING);
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
        return new Experiment(name, share, activity, rate, duration, datasets, filesPerDataset, sizes, order,
                maxOutstanding, window, process, requests, fileSize, inputs);
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

    private static SizeMix sizes(ConfigNode parent) {
        if (!parent.has(SIZE)) {
            return DEFAULT_SIZES;
        }
        ConfigNode n = parent.map(SIZE);
        n.allow(SIZE_KEYS);
        long median = n.size(MEDIAN, DEFAULT_SIZES.median());
        double sigma = n.has(SIGMA) ? n.number(SIGMA, 0, -Double.MIN_VALUE) : DEFAULT_SIZES.sigma();
        long min = n.size(MIN, Math.min(DEFAULT_SIZES.min(), median));
        long max = n.size(MAX, Math.max(DEFAULT_SIZES.max(), median));
        try {
            return new SizeMix(median, sigma, min, max);
        } catch (IllegalArgumentException e) {
            throw parent.error(SIZE, e.getMessage());
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
    private static double rate(ConfigNode n, String key) {
        long bytes = n.scalar(key, 0L, s -> Units.parseSize(s.strip().endsWith("/s")
                ? s.strip().substring(0, s.strip().length() - 2) : s));
        if (bytes <= 0) {
            throw n.error(key, "must be more than 0 bytes per second (e.g. 1GB/s)");
        }
        return bytes;
    }

    /** {@code 10%} or a number of percent, above 0 and at most 100. */
    private static double percent(ConfigNode n, String key) {
        double p = n.scalar(key, 0.0, s -> {
            String t = s.strip();
            try {
                return Double.parseDouble(t.endsWith("%") ? t.substring(0, t.length() - 1).strip() : t);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("\"" + s + "\" is not a percentage (e.g. 10%)", e);
            }
        });
        if (!(p > 0 && p <= 100)) {
            throw n.error(key, "must be above 0 % and at most 100 %, not " + p);
        }
        return p;
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
