package org.tapeq.scheduler.tape.scsi;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.TapeFault;

/**
 * The TapeAlert flags a drive raised (LOG SENSE page 0x2e, read with {@code sg_logs -p 0x2e -HH DEVICE}), and
 * what tapeq does about them ({@link #react}): a drive that asks to be cleaned now is taken out of service
 * ({@code CLEANING}), a hardware flag is a drive fault ({@code DRIVE}), a media flag makes the cartridge suspect,
 * a request for routine (periodic) cleaning is reported and the drive stays in service. When several classes are
 * set, each reaction happens. Drives clear the flags when the page is read, so each reading is acted on once.
 *
 * <p>Design notes. The page is parsed from its hex dump (the page header, then one parameter per flag: code,
 * control byte, length, value whose bit 0 is the flag), not from {@code sg_logs}' flag names, which differ
 * between sg3_utils versions. Flag numbers and names are those of SSC-3's TapeAlert table (as in CTA's
 * {@code tapeserver/castor/tape/tapeserver/SCSI/Constants.cpp}, {@code tapeAlertToString}) and mhVTL's
 * {@code include/common/mhvtl_scsi.h} ({@code TA_*}: bit k-1 = flag k). Which flags count as media and which
 * as hardware is tapeq's choice; flags in neither group (warnings such as 0x01 read warning, 0x03 hard error
 * without a media or hardware flag beside it) are only logged.
 */
record TapeAlert(Set<Integer> flags) {

    static final TapeAlert NONE = new TapeAlert(Set.of());

    /** Clean now (0x14, "cleaning required" in SSC-3): the drive is not to be used before it is cleaned. */
    static final Set<Integer> CLEAN_NOW = Set.of(0x14);
    /** Clean periodic (0x15, "cleaning requested" in SSC-3): routine cleaning at the next convenient time. */
    static final Set<Integer> CLEAN_PERIODIC = Set.of(0x15);
    /** The cartridge is at fault: its data or its mechanics. */
    static final Set<Integer> MEDIA = Set.of(0x04, 0x05, 0x06, 0x07, 0x08, 0x0D, 0x0E, 0x0F, 0x12, 0x33, 0x34,
            0x35, 0x36, 0x3B);
    /** The drive is at fault. */
    static final Set<Integer> HARDWARE = Set.of(0x19, 0x1A, 0x1B, 0x1E, 0x1F, 0x20, 0x22, 0x23, 0x24, 0x25,
            0x26, 0x27, 0x37, 0x38, 0x39, 0x3A);

    private static final Map<Integer, String> NAMES = Map.ofEntries(
            Map.entry(0x01, "read warning"), Map.entry(0x02, "write warning"), Map.entry(0x03, "hard error"),
            Map.entry(0x04, "media"), Map.entry(0x05, "read failure"), Map.entry(0x06, "write failure"),
            Map.entry(0x07, "media life"), Map.entry(0x08, "not data grade"), Map.entry(0x09, "write protect"),
            Map.entry(0x0D, "recoverable mechanical cartridge failure"),
            Map.entry(0x0E, "unrecoverable mechanical cartridge failure"),
            Map.entry(0x0F, "memory chip in cartridge failure"), Map.entry(0x12, "tape directory corrupted on load"),
            Map.entry(0x13, "nearing media life"), Map.entry(0x14, "cleaning required (clean now)"),
            Map.entry(0x15, "cleaning requested (clean periodic)"), Map.entry(0x19, "interface port error"),
            Map.entry(0x1A, "cooling fan failure"), Map.entry(0x1B, "power supply failure"),
            Map.entry(0x1E, "hardware A"), Map.entry(0x1F, "hardware B"), Map.entry(0x20, "primary interface"),
            Map.entry(0x22, "microcode update fail"), Map.entry(0x23, "drive humidity"),
            Map.entry(0x24, "drive temperature"), Map.entry(0x25, "drive voltage"),
            Map.entry(0x26, "predictive failure"), Map.entry(0x27, "diagnostics required"),
            Map.entry(0x33, "tape directory invalid at unload"), Map.entry(0x34, "tape system area write failure"),
            Map.entry(0x35, "tape system area read failure"), Map.entry(0x36, "no start of data"),
            Map.entry(0x37, "loading or threading failure"), Map.entry(0x38, "unrecoverable unload failure"),
            Map.entry(0x39, "automation interface failure"), Map.entry(0x3A, "microcode failure"),
            Map.entry(0x3B, "WORM integrity check failed"));

    private static final Pattern HEX_BYTE = Pattern.compile("[0-9a-fA-F]{2}");
    private static final Pattern OFFSET = Pattern.compile("[0-9a-fA-F]+");
    private static final int PAGE = 0x2e;

    TapeAlert {
        flags = Set.copyOf(flags);
    }

    /** Parses the hex dump of {@code sg_logs -p 0x2e -HH}; throws {@link IllegalArgumentException} naming the problem. */
    static TapeAlert parse(String hexDump) {
        List<Integer> bytes = new ArrayList<>();
        int total = Integer.MAX_VALUE;
        for (String line : hexDump.split("\\R")) {
            String[] words = line.strip().split("\\s+");
            if (words.length < 2 || !OFFSET.matcher(words[0]).matches()) {
                continue; // a heading line, or the drive's identification
            }
            // up to 16 bytes after the offset; what follows them is the dump's text column
            for (int i = 1; i < words.length && i <= 16 && bytes.size() < total; i++) {
                if (!HEX_BYTE.matcher(words[i]).matches()) {
                    break;
                }
                bytes.add(Integer.parseInt(words[i], 16));
                if (bytes.size() == 4) {
                    total = 4 + ((bytes.get(2) << 8) | bytes.get(3));
                }
            }
        }
        if (bytes.size() < 4 || (bytes.get(0) & 0x3f) != PAGE) {
            throw new IllegalArgumentException("sg_logs printed no TapeAlert page (0x2e): \"" + hexDump.strip() + "\"");
        }
        if (bytes.size() < total) {
            throw new IllegalArgumentException("the TapeAlert page is cut short: " + bytes.size() + " of " + total
                    + " bytes");
        }
        Set<Integer> set = new TreeSet<>();
        for (int at = 4; at + 4 <= total; ) {
            int code = (bytes.get(at) << 8) | bytes.get(at + 1);
            int length = bytes.get(at + 3);
            if (length > 0 && at + 4 < total && (bytes.get(at + 4) & 1) != 0) {
                set.add(code);
            }
            at += 4 + length;
        }
        return new TapeAlert(set);
    }

    boolean isEmpty() {
        return flags.isEmpty();
    }

    TapeAlert plus(TapeAlert other) {
        Set<Integer> all = new TreeSet<>(flags);
        all.addAll(other.flags);
        return new TapeAlert(all);
    }

    /** Only the flags of a group ({@link #CLEAN_NOW}, {@link #MEDIA}, {@link #HARDWARE}, ...). */
    TapeAlert only(Set<Integer> group) {
        return new TapeAlert(flags.stream().filter(group::contains).collect(Collectors.toSet()));
    }

    /**
     * What tapeq does about one reading; every part applies, whatever else is set (a cartridge with a media flag
     * in a drive that also asks for cleaning is suspect, and the drive goes out of service).
     *
     * @param fault    fails the operation and decides about the drive: {@code CLEANING} for clean now (0x14),
     *                 with any hardware flags named beside it, else {@code DRIVE} for hardware flags; null if none
     * @param media    the media flags: the cartridge they concern becomes suspect (none: {@link #NONE})
     * @param periodic clean periodic (0x15): reported, the drive stays in service (none: {@link #NONE})
     */
    record Reaction(TapeFault fault, TapeAlert media, TapeAlert periodic) {
    }

    /** The reaction to these flags; {@code what} names the operation for the fault's message. */
    Reaction react(String what) {
        TapeAlert cleanNow = only(CLEAN_NOW);
        TapeAlert hardware = only(HARDWARE);
        TapeFault fault = null;
        if (!cleanNow.isEmpty()) {
            fault = new TapeFault(FaultKind.CLEANING, what + ": the drive asks for cleaning now (TapeAlert " + cleanNow
                    + (hardware.isEmpty() ? "" : "; drive hardware flags too: " + hardware) + ")");
        } else if (!hardware.isEmpty()) {
            fault = new TapeFault(FaultKind.DRIVE, what + ": drive hardware fault (TapeAlert " + hardware + ")");
        }
        return new Reaction(fault, only(MEDIA), only(CLEAN_PERIODIC));
    }

    /** "0x14 cleaning required, 0x1e hardware A". */
    @Override
    public String toString() {
        return flags.stream().sorted().map(f -> String.format("0x%02x %s", f, NAMES.getOrDefault(f, "flag " + f)))
                .collect(Collectors.joining(", "));
    }
}
