package org.tapeq.scheduler.engine.drive;

import org.tapeq.scheduler.engine.queue.WorkQueue;

/**
 * One admin task on a drive: it runs at once on the cartridge in the drive, or after the drive unloaded what
 * it holds and mounted the task's cartridge. A failed mount fails the task (no fault reaction: the task's
 * caller gets the fault). The task ends with {@link DriveRunner#adminDone}.
 */
final class AdminRun {

    private final DriveRunner drive;
    private final DriveContext context;
    private final AdminTask task;

    AdminRun(DriveRunner drive, AdminTask task) {
        this.drive = drive;
        this.context = drive.context;
        this.task = task;
    }

    void start() {
        if (task.barcode().equals(drive.mounted())) {
            run();
            return;
        }
        WorkQueue q = context.queues().cartridgeQueue(task.barcode(), "");
        Runnable mountIt = () -> drive.load(q, "mounting " + task.barcode() + " for admin", false, this::run,
                fault -> {
                    context.queues().index().update(q);
                    drive.set(DriveRunner.State.EMPTY, "empty");
                    task.failed(fault);
                    context.requestDispatch();
                });
        if (drive.mounted() != null) {
            drive.writes().releasePool();
            drive.unmount(mountIt, fault -> { // not unloaded: the task neither runs nor holds its slot
                task.failed(fault);
                context.requestDispatch();
            }, true);
        } else {
            mountIt.run();
        }
    }

    private void run() {
        drive.set(DriveRunner.State.BUSY, "admin on " + drive.mounted());
        task.run(drive);
    }
}
