package org.tapeq.scheduler.engine.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.model.StageRequest;

/** {@link WorkQueue#queuedReads()}: the reads waiting, kept as a count through every change of a read's state. */
class WorkQueueQueuedReadsTest {

    private static StageItem item(long id) {
        StageRequest r = new StageRequest(id, "pnfs" + id, 1_000, "atlas:raw@osm", "/f" + id, "atlas", null, 0, 0,
                null);
        return new StageItem(r, id, (int) id + 1, id * 1000L, 0, 1_000, null);
    }

    /** What the status counted before: a walk over the queue's reads. */
    private static long walked(WorkQueue q) {
        return q.reads().stream().filter(i -> i.queued() && !i.done()).count();
    }

    @Test
    void queuedReads_followsReadingRequeuedCancelledAndDone() {
        WorkQueue q = new WorkQueue("A00000L9", null, MediaType.LTO9, () -> -1, "atlas", 1);
        List<StageItem> items = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            StageItem it = item(i);
            items.add(it);
            q.addRead(it);
        }
        assertEquals(3000, q.queuedReads());
        Random random = new Random(16);
        for (int step = 0; step < 20_000; step++) {
            StageItem it = items.get(random.nextInt(items.size()));
            if (it.done()) {
                continue; // an ended read never changes again
            }
            switch (random.nextInt(4)) {
                case 0 -> it.reading();
                case 1 -> it.requeued();
                case 2 -> it.cancel();
                default -> {
                    if (random.nextInt(8) == 0) {
                        it.markDone(); // also compacts the queue's list once enough are done
                    }
                }
            }
            assertEquals(walked(q), q.queuedReads(), "after step " + step);
        }
        assertEquals(walked(q), q.queuedReads());
    }
}
