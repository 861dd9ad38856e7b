package org.tapeq.daemon;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.pattern.ClassicConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;

/**
 * Logback conversion word {@code %journalPriority}: the sd-daemon prefix ({@code <3>} error, {@code <4>} warning,
 * {@code <6>} info, {@code <7>} debug) that journald reads from the start of a line to set its priority, so
 * that {@code journalctl -u tapeq -p err} filters. Written only when stderr is the journal's stream: systemd
 * sets {@code JOURNAL_STREAM} to the device and inode of that stream, and a process whose stderr was
 * redirected (a shell under the same service, a test) must not print the prefix.
 */
public final class JournalPriority extends ClassicConverter {

    private static final boolean TO_JOURNAL = stderrIsJournal(System.getenv("JOURNAL_STREAM"),
            Path.of("/proc/self/fd/2"));

    @Override
    public String convert(ILoggingEvent event) {
        return TO_JOURNAL ? prefix(event.getLevel()) : "";
    }

    static String prefix(Level level) {
        return switch (level.toInt()) {
            case Level.ERROR_INT -> "<3>";
            case Level.WARN_INT -> "<4>";
            case Level.INFO_INT -> "<6>";
            default -> "<7>";
        };
    }

    /** Whether {@code journalStream} ("DEVICE:INODE", as systemd sets it) names the file {@code stderr} is. */
    static boolean stderrIsJournal(String journalStream, Path stderr) {
        if (journalStream == null || !journalStream.contains(":")) {
            return false;
        }
        try {
            String[] parts = journalStream.split(":", 2);
            long dev = Long.parseLong(parts[0]);
            long ino = Long.parseLong(parts[1]);
            return ((Number) Files.getAttribute(stderr, "unix:dev")).longValue() == dev
                    && ((Number) Files.getAttribute(stderr, "unix:ino")).longValue() == ino;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return false;
        }
    }
}
