package org.tapeq.scheduler.engine;

import org.tapeq.scheduler.model.StageRequest;

/**
 * A stage request in a cartridge queue, with the part of its catalog location the read needs. Kept small:
 * ten million of them must fit in a few GB (docs/benchmarks.md).
 */
final class StageItem implements Ticket {

    static final byte QUEUED = 0;
    static final byte READING = 1;
    static final byte DONE = 2;

    final StageRequest request;
    final long arrival;
    final int tapeFile;
    final long block;
    final long offset;
    final long size;
    final String checksum;
    WorkQueue queue;
    byte state;
    boolean cancelled;
    byte attempts;
    long notBefore = Long.MIN_VALUE;
    String excludedDrive;

    StageItem(StageRequest request, long arrival, int tapeFile, long block, long offset, long size, String checksum) {
        this.request = request;
        this.arrival = arrival;
        this.tapeFile = tapeFile;
        this.block = block;
        this.offset = offset;
        this.size = size;
        this.checksum = checksum;
    }

    @Override
    public StageRequest request() {
        return request;
    }

    boolean pending() {
        return state == QUEUED && !cancelled;
    }
}
