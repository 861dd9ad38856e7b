package org.tapeq.scheduler.tape.scsi;

import java.util.regex.Pattern;

/** Builds POSIX shell command lines from words, quoting each one that needs it. */
final class Shell {

    private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_/.:=,+@%-]+");

    private Shell() {
    }

    /** The word as the shell must see it: unchanged if plain, else in single quotes. */
    static String quote(String word) {
        if (PLAIN.matcher(word).matches()) {
            return word;
        }
        return "'" + word.replace("'", "'\\''") + "'";
    }

    /** The words quoted and joined with spaces: one simple command. */
    static String line(Object... words) {
        StringBuilder b = new StringBuilder();
        for (Object w : words) {
            if (!b.isEmpty()) {
                b.append(' ');
            }
            b.append(quote(String.valueOf(w)));
        }
        return b.toString();
    }
}
