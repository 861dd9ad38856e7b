package org.tapeq.daemon.cli;

import java.util.List;

/**
 * Subcommands that live outside the daemon module, so that the daemon does not depend on them: the tools add-on
 * (module {@code tools/}: {@code demo}, {@code simulate}, {@code loadtest}) is one. A class implementing this
 * interface and listed in {@code META-INF/services/org.tapeq.daemon.cli.TapeqExtension} adds its commands to
 * {@code tapeq} whenever its jar is on the class path (in an installation: in {@code lib/}).
 */
public interface TapeqExtension {

    /** New instances of picocli {@code @Command} classes; each becomes {@code tapeq <its name>}. */
    List<Object> commands();
}
