package org.tapeq.scheduler.tape.scsi;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What {@code mtx status} reports: the drives (data transfer elements, numbered from 0 as {@code mtx load}
 * takes them), the storage slots and the import/export slots (numbered from 1 together, as {@code mtx} numbers
 * them), each full or empty, with the barcode if the library read one and, for a loaded drive, the slot the
 * cartridge came from.
 */
record ChangerStatus(List<Element> drives, List<Element> slots) {

    /**
     * One element.
     *
     * @param number     mtx number (drives from 0, slots from 1)
     * @param full       holds a cartridge
     * @param barcode    its volume tag, or null if none was read
     * @param sourceSlot for a drive: the slot its cartridge came from, or 0 if the library does not know
     * @param importExport an import/export (mail) slot
     */
    record Element(int number, boolean full, String barcode, int sourceSlot, boolean importExport) {
    }

    private static final Pattern HEADER = Pattern.compile(
            "\\s*Storage Changer\\s+(\\S+?):\\s*(\\d+)\\s+Drives?,\\s*(\\d+)\\s+Slots?.*");
    private static final Pattern DRIVE = Pattern.compile(
            "\\s*Data Transfer Element\\s+(\\d+):(Empty|Full)\\s*(?:\\((?:Storage Element (\\d+)|Unknown Storage"
                    + " Element) Loaded\\))?\\s*(?::\\s*VolumeTag\\s*=\\s*(\\S*))?.*");
    private static final Pattern SLOT = Pattern.compile(
            "\\s*Storage Element\\s+(\\d+)(\\s+IMPORT/EXPORT)?\\s*:\\s*(Empty|Full)\\s*"
                    + "(?::\\s*VolumeTag\\s*=\\s*(\\S*))?.*");

    ChangerStatus {
        drives = List.copyOf(drives);
        slots = List.copyOf(slots);
    }

    /** Parses the output; throws {@link IllegalArgumentException} naming the first line it cannot read. */
    static ChangerStatus parse(String text) {
        List<Element> drives = new ArrayList<>();
        List<Element> slots = new ArrayList<>();
        boolean header = false;
        for (String line : text.split("\\R")) {
            if (line.isBlank()) {
                continue;
            }
            Matcher m;
            if ((m = HEADER.matcher(line)).matches()) {
                header = true;
            } else if ((m = DRIVE.matcher(line)).matches()) {
                boolean full = m.group(2).equals("Full");
                drives.add(new Element(number(m.group(1), line), full, full ? barcode(m.group(4)) : null,
                        full && m.group(3) != null ? number(m.group(3), line) : 0, false)); // as the barcode
            } else if ((m = SLOT.matcher(line)).matches()) {
                boolean full = m.group(3).equals("Full");
                slots.add(new Element(number(m.group(1), line), full, full ? barcode(m.group(4)) : null, 0,
                        m.group(2) != null));
            } else {
                throw new IllegalArgumentException("unexpected line in mtx status: \"" + line.strip() + "\"");
            }
        }
        if (!header) {
            throw new IllegalArgumentException("mtx status printed no \"Storage Changer\" header");
        }
        return new ChangerStatus(drives, slots);
    }

    private static int number(String digits, String line) {
        try {
            return Integer.parseInt(digits);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("element number out of range in mtx status: \"" + line.strip() + "\"");
        }
    }

    private static String barcode(String tag) {
        return tag == null || tag.isBlank() ? null : tag.strip();
    }

    Optional<Element> drive(int number) {
        return drives.stream().filter(d -> d.number() == number).findFirst();
    }

    /** The slot (storage or import/export) holding the barcode. */
    Optional<Element> slotOf(String barcode) {
        return slots.stream().filter(s -> s.full() && barcode.equals(s.barcode())).findFirst();
    }

    /** The drive holding the barcode. */
    Optional<Element> driveOf(String barcode) {
        return drives.stream().filter(s -> s.full() && barcode.equals(s.barcode())).findFirst();
    }

    /** Where to return the cartridge in {@code drive}: the slot it came from if empty, else the first empty one. */
    Optional<Integer> returnSlot(Element drive) {
        if (drive.sourceSlot() > 0 && slots.stream().anyMatch(s -> s.number() == drive.sourceSlot() && !s.full()
                && !s.importExport())) {
            return Optional.of(drive.sourceSlot());
        }
        return slots.stream().filter(s -> !s.full() && !s.importExport()).map(Element::number).findFirst();
    }
}
