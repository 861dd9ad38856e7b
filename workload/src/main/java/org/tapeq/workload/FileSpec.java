package org.tapeq.workload;

/**
 * One file of a simulated workload (size only).
 *
 * @param pnfsid  dCache-style id
 * @param size    bytes
 * @param dataset co-location key (dataset name)
 * @param group   experiment, for fair share
 */
public record FileSpec(String pnfsid, long size, String dataset, String group) {

    /** The storage class (and so the tape family) of a group's files. */
    public static String storageClass(String group) {
        return group + ":raw@osm";
    }

    public String storageClass() {
        return storageClass(group);
    }

    public String path() {
        return "/pnfs/" + group + "/" + dataset + "/" + pnfsid;
    }
}
