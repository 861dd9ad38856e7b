package org.tapeq.daemon.bridge;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.tapeq.scheduler.model.StageSpace;

/**
 * The scheduler's stage-space hook for all directories: a read is granted only if every directory it delivers
 * into has room. Each file's directory is its request's origin (a {@link DirectoryBridge}); a file from
 * elsewhere needs no room here.
 */
final class StageBuffers implements StageSpace {

    @Override
    public synchronized boolean tryReserve(List<Claim> claims) {
        Map<StageBuffer, Map<Long, Long>> needs = new HashMap<>();
        for (Claim c : claims) {
            if (c.request().origin() instanceof DirectoryBridge b) {
                needs.computeIfAbsent(b.buffer(), k -> new HashMap<>()).put(c.request().id(), c.bytes());
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
