package org.tapeq.daemon.bridge;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.tapeq.scheduler.model.StageSpace;

/**
 * The scheduler's stage-space hook for all directories: a read is granted only if every directory it delivers
 * into has room (the request id names the directory, see {@link DirectoryBridge}).
 */
public final class StageBuffers implements StageSpace {

    private final StageBuffer[] buffers = new StageBuffer[BridgeSettings.MAX_DIRECTORIES];

    public void add(DirectoryBridge bridge) {
        buffers[bridge.index()] = bridge.buffer();
    }

    @Override
    public synchronized boolean tryReserve(List<Claim> claims) {
        Map<StageBuffer, Map<Long, Long>> needs = new HashMap<>();
        for (Claim c : claims) {
            long id = c.request().id();
            StageBuffer b = buffers[(int) (id & 0xff)];
            if (b != null) {
                needs.computeIfAbsent(b, k -> new HashMap<>()).put(id, c.bytes());
            }
        }
        for (Map.Entry<StageBuffer, Map<Long, Long>> e : needs.entrySet()) {
            if (!e.getKey().fits(e.getKey().missing(e.getValue()))) {
                return false;
            }
        }
        needs.forEach(StageBuffer::take);
        return true;
    }
}
