package org.tapeq.tools;

import java.util.List;

import org.tapeq.daemon.cli.TapeqExtension;
import org.tapeq.loadtest.LoadtestCommand;
import org.tapeq.simulator.SimulateCommand;
import org.tapeq.tools.demo.DemoCommand;
import org.tapeq.tools.demo.HostsBenchCommand;

/**
 * The tools add-on's commands: {@code tapeq demo}, {@code tapeq simulate}, {@code tapeq loadtest} and the scale-out
 * benchmark {@code tapeq bench-hosts}. Listed in
 * {@code META-INF/services/org.tapeq.daemon.cli.TapeqExtension}, so that the {@code tapeq} command of a daemon
 * installation has them once the add-on's jars are in its {@code lib/}; the daemon does not depend on them.
 */
public final class Tools implements TapeqExtension {

    @Override
    public List<Object> commands() {
        return List.of(new DemoCommand(), new SimulateCommand(), new LoadtestCommand(), new HostsBenchCommand());
    }
}
