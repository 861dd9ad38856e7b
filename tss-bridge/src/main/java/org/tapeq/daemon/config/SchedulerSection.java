package org.tapeq.daemon.config;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.ObjLongConsumer;
import java.util.function.ToLongFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

import org.tapeq.config.ConfigNode;
import org.tapeq.config.Units;
import org.tapeq.scheduler.engine.SchedulerConfig;
import org.tapeq.scheduler.engine.SchedulerConfig.Builder;
import org.tapeq.scheduler.engine.SchedulerConfig.ColocationRule;
import org.tapeq.scheduler.engine.SchedulerConfig.FamilyRule;
import org.tapeq.scheduler.engine.SchedulerConfig.GroupShare;
import org.tapeq.scheduler.policy.MountPolicies;

/**
 * Maps {@code scheduler:}, {@code families:}, {@code colocation:}, {@code groups:} and {@code reclaim:}
 * ({@link ReclaimSection}) onto a
 * {@link SchedulerConfig}. The numeric scheduler keys are one table (YAML name, the builder's name for it, value
 * syntax, setter, getter), so parsing, the builder's error messages and {@link #describe} cannot drift apart.
 * Defaults are {@link SchedulerConfig}'s own.
 */
final class SchedulerSection {

    static final String SCHEDULER = "scheduler";
    static final String FAMILIES = "families";
    static final String COLOCATION = "colocation";
    static final String GROUPS = "groups";

    static final String POLICY = "policy";
    static final String CHECK_LABELS = "checkLabels";
    static final String VERIFY_AFTER_WRITE = "verifyAfterWrite";
    static final String BACKGROUND_SHARE = "backgroundShare";
    static final String STORAGE_CLASS = "storageClass";
    static final String FAMILY = "family";
    static final String PATH = "path";
    static final String DATASET = "dataset";
    static final String NAME = "name";
    static final String SHARE = "share";
    static final String MAX_DRIVES = "maxDrives";

    private enum Syntax { SIZE, DURATION, COUNT }

    /** One numeric key of {@code scheduler:}; {@code builderName} is how the builder's errors name it. */
    private record Key(String name, String builderName, Syntax syntax, ObjLongConsumer<Builder> set,
                       ToLongFunction<SchedulerConfig> get) {
    }

    private static final List<Key> KEYS = List.of(
            new Key("minMountBytes", "minMountBytes", Syntax.SIZE, Builder::minMountBytes,
                    SchedulerConfig::minMountBytes),
            new Key("minMountFiles", "minMountFiles", Syntax.COUNT, (b, v) -> b.minMountFiles((int) v),
                    SchedulerConfig::minMountFiles),
            new Key("quietTime", "quietMillis", Syntax.DURATION, Builder::quietMillis, SchedulerConfig::quietMillis),
            new Key("maxWait", "maxWaitMillis", Syntax.DURATION, Builder::maxWaitMillis,
                    SchedulerConfig::maxWaitMillis),
            new Key("remountGuard", "remountGuardMillis", Syntax.DURATION, Builder::remountGuardMillis,
                    SchedulerConfig::remountGuardMillis),
            new Key("dwell", "dwellMillis", Syntax.DURATION, Builder::dwellMillis, SchedulerConfig::dwellMillis),
            new Key("backgroundHoldoff", "backgroundHoldoffMillis", Syntax.DURATION, Builder::backgroundHoldoffMillis,
                    SchedulerConfig::backgroundHoldoffMillis),
            new Key("idleUnmount", "idleUnmountMillis", Syntax.DURATION, Builder::idleUnmountMillis,
                    SchedulerConfig::idleUnmountMillis),
            new Key("mergeGap", "mergeGapBytes", Syntax.SIZE, Builder::mergeGapBytes, SchedulerConfig::mergeGapBytes),
            new Key("aggregateBytes", "aggregateBytes", Syntax.SIZE, Builder::aggregateBytes,
                    SchedulerConfig::aggregateBytes),
            new Key("aggregateFiles", "aggregateFiles", Syntax.COUNT, (b, v) -> b.aggregateFiles((int) v),
                    SchedulerConfig::aggregateFiles),
            new Key("aggregateWait", "aggregateWaitMillis", Syntax.DURATION, Builder::aggregateWaitMillis,
                    SchedulerConfig::aggregateWaitMillis),
            new Key("maxAttempts", "maxAttempts", Syntax.COUNT, (b, v) -> b.maxAttempts((int) v),
                    SchedulerConfig::maxAttempts),
            new Key("retryBackoff", "retryBackoffMillis", Syntax.DURATION, Builder::retryBackoffMillis,
                    SchedulerConfig::retryBackoffMillis),
            new Key("driveErrorLimit", "driveErrorLimit", Syntax.COUNT, (b, v) -> b.driveErrorLimit((int) v),
                    SchedulerConfig::driveErrorLimit),
            new Key("robotErrorLimit", "robotErrorLimit", Syntax.COUNT, (b, v) -> b.robotErrorLimit((int) v),
                    SchedulerConfig::robotErrorLimit),
            new Key("blockedLimit", "blockedLimitMillis", Syntax.DURATION, Builder::blockedLimitMillis,
                    SchedulerConfig::blockedLimitMillis),
            new Key("fullMargin", "fullMarginBytes", Syntax.SIZE, Builder::fullMarginBytes,
                    SchedulerConfig::fullMarginBytes),
            new Key("flushFiles", "flushFiles", Syntax.COUNT, (b, v) -> b.flushFiles((int) v),
                    SchedulerConfig::flushFiles),
            new Key("flushBytes", "flushBytes", Syntax.SIZE, Builder::flushBytes, SchedulerConfig::flushBytes),
            new Key("flushHold", "flushHoldMillis", Syntax.DURATION, Builder::flushHoldMillis,
                    SchedulerConfig::flushHoldMillis),
            new Key("maxReadDrives", "maxReadDrives", Syntax.COUNT, (b, v) -> b.maxReadDrives((int) v),
                    SchedulerConfig::maxReadDrives),
            new Key("maxWriteDrives", "maxWriteDrives", Syntax.COUNT, (b, v) -> b.maxWriteDrives((int) v),
                    SchedulerConfig::maxWriteDrives),
            new Key("maxBackgroundDrives", "maxBackgroundDrives", Syntax.COUNT,
                    (b, v) -> b.maxBackgroundDrives((int) v), SchedulerConfig::maxBackgroundDrives),
            new Key("repackSpool", "repackSpoolBytes", Syntax.SIZE, Builder::repackSpoolBytes,
                    SchedulerConfig::repackSpoolBytes),
            new Key("migrationRepacks", "migrationRepacks", Syntax.COUNT, (b, v) -> b.migrationRepacks((int) v),
                    SchedulerConfig::migrationRepacks),
            new Key("verifyPerWeek", "verifyPerWeek", Syntax.COUNT, (b, v) -> b.verifyPerWeek((int) v),
                    SchedulerConfig::verifyPerWeek),
            new Key("verifySample", "verifySample", Syntax.COUNT, (b, v) -> b.verifySample((int) v),
                    SchedulerConfig::verifySample));

    /**
     * The keys a running daemon takes over on SIGHUP ({@link org.tapeq.scheduler.engine.Tuning}): read by the
     * engine where it uses them. Every other key is copied into the engine's parts at start and needs a restart.
     */
    static final List<String> RELOADABLE = List.of("aggregateBytes", "aggregateFiles", "aggregateWait", "maxAttempts",
            "blockedLimit");

    private static final SchedulerConfig DEFAULTS = SchedulerConfig.defaults();
    /** A group reference {@code $n} in a replacement. */
    private static final Pattern GROUP_REFERENCE = Pattern.compile("(?<!\\\\)\\$(\\d)");

    private final SchedulerConfig config;
    private final List<FamilyRule> families;
    private final List<ColocationRule> colocation;

    private SchedulerSection(SchedulerConfig config, List<FamilyRule> families, List<ColocationRule> colocation) {
        this.config = config;
        this.families = families;
        this.colocation = colocation;
    }

    SchedulerConfig config() {
        return config;
    }

    static SchedulerSection parse(ConfigNode root) {
        ConfigNode scheduler = root.map(SCHEDULER);
        List<String> known = new ArrayList<>(List.of(POLICY));
        KEYS.forEach(k -> known.add(k.name));
        known.addAll(List.of(CHECK_LABELS, VERIFY_AFTER_WRITE, BACKGROUND_SHARE));
        scheduler.allow(known);
        Builder builder = SchedulerConfig.builder();
        String policy = scheduler.string(POLICY, DEFAULTS.policy());
        if (!MountPolicies.names().contains(policy)) {
            throw scheduler.error(POLICY, "\"" + policy + "\" is not one of "
                    + String.join(", ", MountPolicies.names()));
        }
        builder.policy(policy)
                .checkLabels(scheduler.bool(CHECK_LABELS, DEFAULTS.checkLabels()))
                .verifyAfterWrite(scheduler.bool(VERIFY_AFTER_WRITE, DEFAULTS.verifyAfterWrite()));
        double share = scheduler.number(BACKGROUND_SHARE, DEFAULTS.backgroundShare(), -1);
        if (share < 0 || share > 1) {
            throw scheduler.error(BACKGROUND_SHARE, "must be between 0 and 1 (a share of the user work's time), not "
                    + share);
        }
        builder.backgroundShare(share).reclaim(ReclaimSection.parse(root));
        for (Key key : KEYS) {
            long fallback = key.get.applyAsLong(DEFAULTS);
            long value = switch (key.syntax) {
                case SIZE -> scheduler.size(key.name, fallback);
                case DURATION -> scheduler.duration(key.name, fallback);
                case COUNT -> scheduler.integer(key.name, fallback, 0, Integer.MAX_VALUE);
            };
            key.set.accept(builder, value);
        }
        List<FamilyRule> families = new ArrayList<>();
        for (ConfigNode rule : root.list(FAMILIES)) {
            rule.allow(List.of(STORAGE_CLASS, FAMILY));
            Pattern pattern = regex(rule, STORAGE_CLASS);
            String family = rule.requiredString(FAMILY);
            families.add(new FamilyRule(pattern, family));
            builder.familyRule(pattern.pattern(), family);
        }
        List<ColocationRule> colocation = new ArrayList<>();
        for (ConfigNode rule : root.list(COLOCATION)) {
            rule.allow(List.of(PATH, DATASET));
            Pattern pattern = regex(rule, PATH);
            String dataset = rule.requiredString(DATASET);
            Matcher reference = GROUP_REFERENCE.matcher(dataset);
            int groups = pattern.matcher("").groupCount();
            while (reference.find()) {
                if (Integer.parseInt(reference.group(1)) > groups) {
                    throw rule.error(DATASET, "\"" + dataset + "\" refers to $" + reference.group(1) + " but the "
                            + PATH + " pattern has " + groups + " group(s)");
                }
            }
            colocation.add(new ColocationRule(pattern, dataset));
            builder.colocationRule(pattern.pattern(), dataset);
        }
        Set<String> groupNames = new HashSet<>();
        for (ConfigNode group : root.list(GROUPS)) {
            group.allow(List.of(NAME, SHARE, MAX_DRIVES));
            String name = group.requiredString(NAME);
            if (!groupNames.add(name)) {
                throw group.error(NAME, "\"" + name + "\" is listed twice");
            }
            builder.group(name, group.number(SHARE, GroupShare.DEFAULT.share(), 0),
                    (int) group.integer(MAX_DRIVES, GroupShare.DEFAULT.maxDrives(), 0, Integer.MAX_VALUE));
        }
        try {
            return new SchedulerSection(builder.build(), List.copyOf(families), List.copyOf(colocation));
        } catch (IllegalArgumentException e) {
            for (Key key : KEYS) {
                if (e.getMessage().startsWith(key.builderName + " ")) {
                    throw scheduler.error(key.name, e.getMessage());
                }
            }
            throw scheduler.error(e.getMessage());
        }
    }

    private static Pattern regex(ConfigNode rule, String key) {
        String regex = rule.requiredString(key);
        try {
            return Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
            throw rule.error(key, "\"" + regex + "\" is not a valid regular expression: " + e.getDescription()
                    + " at index " + e.getIndex());
        }
    }

    void describe(YamlText out) {
        out.put(0, FAMILIES, families.isEmpty() ? "[]" : null);
        for (FamilyRule rule : families) {
            out.item(1, STORAGE_CLASS, YamlText.quote(rule.pattern())).put(2, FAMILY, YamlText.quote(rule.family()));
        }
        out.put(0, COLOCATION, colocation.isEmpty() ? "[]" : null);
        for (ColocationRule rule : colocation) {
            out.item(1, PATH, YamlText.quote(rule.pattern())).put(2, DATASET, YamlText.quote(rule.replacement()));
        }
        Map<String, GroupShare> groups = new TreeMap<>(config.groups());
        out.put(0, GROUPS, groups.isEmpty() ? "[]" : null);
        groups.forEach((name, share) -> out.item(1, NAME, YamlText.quote(name))
                .put(2, SHARE, share.share()).put(2, MAX_DRIVES, share.maxDrives()));
        out.put(0, SCHEDULER, null).put(1, POLICY, YamlText.quote(config.policy()));
        for (Key key : KEYS) {
            long value = key.get.applyAsLong(config);
            out.put(1, key.name, switch (key.syntax) {
                case SIZE -> Units.formatSize(value);
                case DURATION -> Units.formatDuration(value);
                case COUNT -> Long.toString(value);
            });
        }
        out.put(1, CHECK_LABELS, config.checkLabels()).put(1, VERIFY_AFTER_WRITE, config.verifyAfterWrite())
                .put(1, BACKGROUND_SHARE, config.backgroundShare());
        ReclaimSection.describe(config.reclaim(), out);
    }
}
