package org.tapeq.daemon.cli;

/**
 * A subcommand that lives outside this module (so that tss-bridge need not depend on it): a picocli
 * {@code @Command} class implementing this interface and listed in
 * {@code META-INF/services/org.tapeq.daemon.cli.TapeqExtension} becomes {@code tapeq <its name>} whenever its jar
 * is on the class path (in the package: in {@code lib/}). {@code tapeq loadtest} is one.
 */
public interface TapeqExtension {
}
