package org.tapeq.scheduler.engine;

/**
 * The scheduling knobs a running engine takes over from a reloaded configuration ({@link Scheduler#retune}, the
 * daemon's SIGHUP). The engine reads them where it uses them, never keeps a copy, so a new value counts from the
 * next decision: an aggregate opened after the change closes at the new size, file count or wait; a request
 * that fails next is judged by the new number of attempts; blocked requests by the new limit. Every other key
 * is copied into the engine's parts at start (drive settings, group shares, the mount policy's criteria and
 * the queue order they set) and needs a restart.
 */
public record Tuning(long aggregateBytes, int aggregateFiles, long aggregateWaitMillis, int maxAttempts,
                     long blockedLimitMillis) {

    /** The knobs as {@code config} sets them. */
    public static Tuning of(SchedulerConfig config) {
        return new Tuning(config.aggregateBytes(), config.aggregateFiles(), config.aggregateWaitMillis(),
                config.maxAttempts(), config.blockedLimitMillis());
    }
}
