package org.tapeq.workload.scenario;

import java.nio.file.Path;

import org.tapeq.workload.SizeMix;
import org.tapeq.workload.Sizes;

/**
 * One experiment of a scenario: its own storage class ({@code <name>:raw}), tape family and fair-share group,
 * doing one {@link Activity}. Rates and times are in library time (see {@link Scenario}).
 *
 * @param share           the experiment's share of the drives (the daemon's group share)
 * @param rate            DT: bytes per second to write
 * @param durationMillis  DT: how long to write
 * @param datasets        DT: datasets written one after the other; ADT, carousel: datasets written first
 * @param filesPerDataset ADT, carousel: files per dataset
 * @param sizes           sizes of the files written (the harness draws log-normal {@link SizeMix}es only)
 * @param order           ADT, carousel: recall whole datasets one after the other, or files of all datasets mixed
 * @param maxOutstanding  ADT: at most this many stage requests outstanding at once (0: all at once)
 * @param windowPercent   carousel: at most this share of the inputs requested or on disk at once
 * @param processMillis   carousel: how long a staged file is worked on before it is dropped from disk
 * @param requests        burst: stage requests submitted at once
 * @param burstFileSize   burst: size of each file
 * @param inputs          ADT: the file list of a previous run ({@code files.csv} or its report folder) whose files
 *                        of this experiment's name are recalled instead of inputs written first; null: its own
 * @param sim             the keys only {@code tapeq simulate} reads
 */
public record Experiment(String name, double share, Activity activity, double rate, long durationMillis, int datasets,
                         int filesPerDataset, Sizes sizes, RecallOrder order, int maxOutstanding,
                         double windowPercent, long processMillis, int requests, long burstFileSize,
                         Path inputs, Simulation sim) {

    /** The dCache storage class of the experiment's files; the daemon maps it to the experiment's family. */
    public String storageClass() {
        return name + ":raw";
    }

    /**
     * What only {@code tapeq simulate} reads (docs/simulator.md); the harness ignores it.
     *
     * @param group           fair-share group, tape family and storage class ({@code <group>:raw@osm}); experiments
     *                        of one group share them (the harness gives every experiment its own)
     * @param maxDrives       the group's cap on drives (0: none)
     * @param files           adt, carousel: ATLAS-like datasets (AOD, DAOD, RAW) of this many files in all, instead of
     *                        {@code datasets} x {@code filesPerDataset}; 0: not used
     * @param cartridges      adt, carousel: cartridges holding the inputs; dt: blank cartridges for the writes
     * @param barcodes        the cartridges' barcode prefix
     * @param layout          adt, carousel: how the inputs were written
     * @param requests        adt: recall this many of the inputs, chosen at random (0: all)
     * @param requestRate     adt: requests per second reaching the scheduler, one after the other (0: all at once)
     * @param startMillis     adt: when the first request arrives
     * @param spreadMillis    adt: the requests arrive as a Poisson process over this long (0: not spread)
     * @param filesPerDataset dt: a new dataset (co-location key) every this many files
     */
    public record Simulation(String group, int maxDrives, int files, int cartridges, String barcodes, Layout layout,
                             int requests, double requestRate, long startMillis, long spreadMillis,
                             int filesPerDataset) {
    }

    /** How the simulator lays out an experiment's inputs on its cartridges. */
    public enum Layout {
        /** each dataset contiguous on one cartridge, in aggregates, between other data */
        COLOCATED,
        /** each file written alone at a random place of a random cartridge, among other data */
        SCATTERED
    }

    /** In which order an A-DT or carousel recalls its inputs. */
    public enum RecallOrder {
        /** whole datasets, one after the other (files in the order they were written) */
        DATASETS,
        /** files of every dataset shuffled together (the tape challenge's lesson: slower) */
        MIXED
    }
}
