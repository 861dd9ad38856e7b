package org.tapeq.scheduler.policy;

/**
 * The baseline of dCache's script HSM: one request at a time in arrival order. After each file the drive
 * takes the oldest request anywhere, remounting if it is on another cartridge.
 */
public final class FifoMountPolicy implements MountPolicy {

    private final ReadOrder order = new ArrivalOrder();

    @Override
    public long eligibleAt(QueueView queue) {
        return queue.retryNotBefore();
    }

    @Override
    public double rank(QueueView queue) {
        return -(double) queue.oldestArrival();
    }

    @Override
    public boolean keepMounted(QueueView mounted, QueueView best) {
        return best == null || mounted.oldestArrival() <= best.oldestArrival();
    }

    @Override
    public ReadOrder readOrder() {
        return order;
    }

    @Override
    public int passLimit() {
        return 1;
    }
}
