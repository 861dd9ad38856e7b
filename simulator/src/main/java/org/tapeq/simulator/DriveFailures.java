package org.tapeq.simulator;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Drives that fail in the middle of a run ({@code simulate --drive-failures N@H[+R]}): at {@code H} hours after the
 * run's start the first {@code N} drives fail (every operation on them, unload included, fails with {@code DRIVE}:
 * a cartridge in one stays there), and {@code R} hours later (default 2) they are repaired and an operator puts them
 * back into service ({@code Scheduler.driveUp}). The engine's reaction (taking the drive out of service after its
 * error limit, retrying the reads elsewhere, waiting for a stuck cartridge) is the product's own.
 */
record DriveFailures(int drives, long atMillis, long repairMillis) {

    static final long DEFAULT_REPAIR_MILLIS = 2 * 3_600_000L;
    private static final Pattern FORM = Pattern.compile("(\\d+)@(\\d+(?:\\.\\d+)?)(?:\\+(\\d+(?:\\.\\d+)?))?");

    DriveFailures {
        if (drives < 1 || atMillis < 0 || repairMillis <= 0) {
            throw new IllegalArgumentException("drive failures need at least one drive, a time >= 0 and a repair"
                    + " time > 0");
        }
    }

    /** {@code N@H} or {@code N@H+R} (hours, decimals allowed); an error names the form. */
    static DriveFailures parse(String text) {
        Matcher m = FORM.matcher(text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("--drive-failures: \"" + text + "\" is not N@HOURS[+REPAIR_HOURS]"
                    + " (e.g. 3@2+4: three drives fail 2 h into the run and are back 4 h later)");
        }
        long at = Math.round(Double.parseDouble(m.group(2)) * 3_600_000L);
        long repair = m.group(3) == null ? DEFAULT_REPAIR_MILLIS : Math.round(Double.parseDouble(m.group(3))
                * 3_600_000L);
        return new DriveFailures(Integer.parseInt(m.group(1)), at, repair);
    }

    /** The drive ids that fail, out of a library of {@code libraryDrives} named drive0, drive1, ... */
    String[] driveIds(int libraryDrives) {
        if (drives > libraryDrives) {
            throw new IllegalArgumentException("--drive-failures: " + drives + " drives fail but the library has "
                    + libraryDrives);
        }
        String[] ids = new String[drives];
        for (int i = 0; i < drives; i++) {
            ids[i] = "drive" + i;
        }
        return ids;
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "%d drive(s) fail at %.2f h, back %.2f h later", drives,
                atMillis / 3.6e6, repairMillis / 3.6e6);
    }
}
