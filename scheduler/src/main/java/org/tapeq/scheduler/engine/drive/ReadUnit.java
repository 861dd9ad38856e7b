package org.tapeq.scheduler.engine.drive;

import java.util.List;

import org.tapeq.scheduler.engine.queue.StageItem;

/**
 * Requested members of one tape file close enough together to be read in one streaming pass: the tape is
 * positioned once at the first member's block and read to the end of the last.
 */
final class ReadUnit {

    final List<StageItem> items;
    final long startBlock;
    final long endBlock;
    final long arrival;

    ReadUnit(List<StageItem> items, int blockSize) {
        this.items = items;
        StageItem first = items.get(0);
        StageItem last = items.get(items.size() - 1);
        this.startBlock = first.block();
        long lastBytes = last.offset() % blockSize + Math.max(1, last.size());
        this.endBlock = last.block() + (lastBytes + blockSize - 1) / blockSize;
        long a = Long.MAX_VALUE;
        for (StageItem it : items) {
            a = Math.min(a, it.arrival());
        }
        this.arrival = a;
    }
}
