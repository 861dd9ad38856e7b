package org.tapeq.daemon.cli;

import picocli.CommandLine;

/** A command that only groups subcommands ({@code tapeq}, {@code tapeq drive}, ...): alone, it says one is needed. */
abstract class CommandGroup implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a subcommand is required");
    }
}
