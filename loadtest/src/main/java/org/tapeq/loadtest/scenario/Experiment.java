package org.tapeq.loadtest.scenario;

import java.nio.file.Path;

/**
 * One experiment of a scenario: its own storage class ({@code <name>:raw}), tape family and fair-share group,
 * doing one {@link Activity}. Rates and times are in library time (see {@link Scenario}).
 *
 * @param share           the experiment's share of the drives (the daemon's group share)
 * @param rate            DT: bytes per second to write
 * @param durationMillis  DT: how long to write
 * @param datasets        DT: datasets written one after the other; ADT, carousel: datasets written first
 * @param filesPerDataset ADT, carousel: files per dataset
 * @param sizes           sizes of the files written
 * @param order           ADT, carousel: recall whole datasets one after the other, or files of all datasets mixed
 * @param maxOutstanding  ADT: at most this many stage requests outstanding at once (0: all at once)
 * @param windowPercent   carousel: at most this share of the inputs requested or on disk at once
 * @param processMillis   carousel: how long a staged file is worked on before it is dropped from disk
 * @param requests        burst: stage requests submitted at once
 * @param burstFileSize   burst: size of each file
 * @param inputs          ADT: the file list of a previous run ({@code files.csv} or its report folder) whose files
 *                        of this experiment's name are recalled instead of inputs written first; null: its own
 */
public record Experiment(String name, double share, Activity activity, double rate, long durationMillis, int datasets,
                         int filesPerDataset, SizeMix sizes, RecallOrder order, int maxOutstanding,
                         double windowPercent, long processMillis, int requests, long burstFileSize,
                         Path inputs) {

    /** The dCache storage class of the experiment's files; the daemon maps it to the experiment's family. */
    public String storageClass() {
        return name + ":raw";
    }

    /** In which order an A-DT or carousel recalls its inputs. */
    public enum RecallOrder {
        /** whole datasets, one after the other (files in the order they were written) */
        DATASETS,
        /** files of every dataset shuffled together (the tape challenge's lesson: slower) */
        MIXED
    }
}
