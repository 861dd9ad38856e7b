package org.tapeq.scheduler.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.model.FaultKind;

class RecentFaultsTest {

    @Test
    void newestFirst_keepsTheLastFifty() {
        RecentFaults faults = new RecentFaults();
        assertEquals(List.of(), faults.newestFirst());
        for (int i = 0; i < 70; i++) {
            faults.add(1_000L * i, i % 2 == 0 ? FaultKind.MEDIA : FaultKind.ROBOT, "drive" + (i % 3), "C" + i,
                    "reason " + i);
        }
        List<SchedulerStatus.Fault> list = faults.newestFirst();
        assertEquals(RecentFaults.CAPACITY, list.size());
        assertEquals(new SchedulerStatus.Fault(69_000L, "robot", "drive0", "C69", "reason 69"), list.get(0));
        assertEquals(new SchedulerStatus.Fault(20_000L, "media", "drive2", "C20", "reason 20"), list.get(49));
    }

    @Test
    void add_withoutDriveOrCartridge_keepsThemNull() {
        RecentFaults faults = new RecentFaults();
        faults.add(5L, FaultKind.SOURCE, null, null, "flush 0000A rejected: size differs");
        SchedulerStatus.Fault f = faults.newestFirst().get(0);
        assertEquals("source", f.kind());
        assertNull(f.drive());
        assertNull(f.cartridge());
    }
}
