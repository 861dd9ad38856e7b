package org.tapeq.scheduler.engine.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.model.FlushRequest;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.model.StageRequest;

/** {@link WorkQueue#runs()}: runs of requested tape files, each entered with one locate. */
class WorkQueueRunsTest {

    private static WorkQueue queue() {
        return new WorkQueue("A00000L9", null, MediaType.LTO9, () -> -1, "atlas", 1);
    }

    private static StageItem item(long id, int tapeFile) {
        StageRequest r = new StageRequest(id, "pnfs" + id, 1_000_000, "atlas:raw@osm", "/f" + id, "atlas", null, 0, 0,
                null);
        return new StageItem(r, id, tapeFile, tapeFile * 1000L, 0, 1_000_000, null);
    }

    @Test
    void runs_consecutiveTapeFilesInAnyArrivalOrder_countOnce() {
        WorkQueue q = queue();
        int[] tapeFiles = {12, 3, 11, 4, 10, 5, 40, 3};   // 3-5, 10-12, 40 (two files in tape file 3)
        for (int i = 0; i < tapeFiles.length; i++) {
            q.addRead(item(i, tapeFiles[i]));
        }
        assertEquals(8, q.files());
        assertEquals(3, q.runs());
    }

    @Test
    void runs_scatteredFiles_oneRunEach() {
        WorkQueue q = queue();
        for (int i = 0; i < 500; i++) {
            q.addRead(item(i, 1 + 3 * ((i * 37) % 500)));
        }
        assertEquals(500, q.runs());
    }

    @Test
    void runs_readFilesLeaveTheCount() {
        WorkQueue q = queue();
        List<StageItem> items = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            // arriving alternately: one run of 200 tape files (1-200) and 200 single files (1 000, 1 002, ...)
            StageItem it = item(i, i % 2 == 0 ? 1 + i / 2 : 1000 + i);
            items.add(it);
            q.addRead(it);
        }
        assertEquals(201, q.runs());
        for (int i = 1; i < 400; i += 2) {
            items.get(i).markDone();
        }
        assertEquals(200, q.files());
        assertEquals(1, q.runs());
        assertEquals(0, queue().runs());
    }

    @Test
    void runs_scatteredReadsServedThenCoLocatedArrive_oneRun() {
        WorkQueue q = queue();
        List<StageItem> scattered = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            StageItem it = item(i, 1 + 3 * i);
            scattered.add(it);
            q.addRead(it);
        }
        assertEquals(500, q.runs());
        scattered.forEach(StageItem::markDone);   // all served during the mount, no rank in between
        for (int i = 0; i < 450; i++) {
            q.addRead(item(1000 + i, 5000 + i));
        }
        assertEquals(450, q.files());
        assertEquals(1, q.runs());
    }

    @Test
    void runs_fewScatteredAddedToCoLocated_countEachAsItArrives() {
        WorkQueue q = queue();
        for (int i = 0; i < 1000; i++) {
            q.addRead(item(i, 1 + i));
        }
        assertEquals(1, q.runs());
        for (int k = 1; k <= 240; k++) {
            q.addRead(item(2000 + k, 2000 + 3 * k));
            assertEquals(1 + k, q.runs(), "after " + k + " scattered reads");
        }
    }

    @Test
    void runs_writesCountOneRunHoweverManyFiles() {
        WorkQueue q = queue();
        for (int i = 0; i < 100; i++) {
            q.addRead(item(i, 1 + 3 * i));
        }
        assertEquals(100, q.runs());
        PendingAggregate agg = new PendingAggregate("raw", "ds", "atlas", 0);
        for (int i = 0; i < 20; i++) {
            agg.add(new FlushItem(new FlushRequest(500 + i, "w" + i, 1000, "atlas:raw@osm", "/w" + i, null, "atlas",
                    0, 0, null, null), "raw", "ds"));
        }
        q.addWrite(agg);
        assertEquals(120, q.files());
        assertEquals(101, q.runs());
        q.takeWrite();
        assertEquals(100, q.runs());
    }
}
