package org.tapeq.simulator;

import java.util.ArrayList;
import java.util.List;

import org.tapeq.scheduler.engine.Scheduler;
import org.tapeq.scheduler.tape.sim.SimFaults;
import org.tapeq.scheduler.time.EventLoop;
import org.tapeq.workload.SimOptions;

/**
 * Puts a scenario's faults ({@code faults:}, or {@code --drive-failures} in place of its drive failures) into the
 * simulated library at their times. The engine's reaction is its own: a failed drive goes out of service after its
 * error limit, reads are retried elsewhere, a cartridge stuck in a failed drive waits; after the repair an operator
 * puts the drive back ({@code Scheduler.driveUp}). A robot outage fails every move until it ends.
 */
final class ScenarioFaults {

    private ScenarioFaults() {
    }

    /** The drive failures of a run: the command line's if given, else the scenario's. */
    static List<SimOptions.DriveFailure> driveFailures(SimOptions.Faults faults, DriveFailures commandLine) {
        if (commandLine == null) {
            return faults.driveFailures();
        }
        return List.of(new SimOptions.DriveFailure(0, commandLine.drives(), commandLine.atMillis(),
                commandLine.repairMillis()));
    }

    /** Schedules every fault on the loop, times from now (the run's start); {@code drives} in the library. */
    static void schedule(EventLoop loop, SimFaults switches, Scheduler scheduler, SimOptions.Faults faults,
                         DriveFailures commandLine, int drives) {
        for (SimOptions.DriveFailure f : driveFailures(faults, commandLine)) {
            List<String> ids = new ArrayList<>();
            for (int i = f.first(); i < f.first() + f.count(); i++) {
                ids.add("drive" + i);
            }
            if (f.first() + f.count() > drives) {
                throw new IllegalArgumentException("drive failures: drives " + ids + " fail but the library has "
                        + drives);
            }
            loop.schedule(f.atMillis(), () -> ids.forEach(switches::failDrive));
            loop.schedule(f.atMillis() + f.repairMillis(), () -> {
                for (String d : ids) {
                    switches.restoreDrive(d);
                    scheduler.driveUp(d); // the operator, after the repair
                }
                slow(switches, faults.slowDrives(), drives); // a repair clears a drive's rate too
            });
        }
        slow(switches, faults.slowDrives(), drives);
        for (SimOptions.RobotOutage o : faults.robotOutages()) {
            loop.schedule(o.atMillis(), switches::failRobot);
            loop.schedule(o.atMillis() + o.forMillis(), switches::restoreRobot);
        }
    }

    /** The last {@code count} drives stream slower. */
    private static void slow(SimFaults switches, SimOptions.SlowDrives slow, int drives) {
        if (slow == null) {
            return;
        }
        for (int i = Math.max(0, drives - slow.count()); i < drives; i++) {
            switches.slowDrive("drive" + i, slow.factor());
        }
    }
}
