package org.tapeq.scheduler.tape.sim;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Fault switches of a {@link SimulatedLibrary}. Thread-safe; a switch affects operations started after it was
 * set. Injected failures never change recorded data.
 */
public final class SimFaults {

    private final Set<String> failedDrives = new HashSet<>();
    private final Map<String, Integer> driveFailuresLeft = new HashMap<>();
    private final Map<String, Set<Integer>> mediaErrors = new HashMap<>();
    private final Set<String> tapeFullNext = new HashSet<>();
    private final Map<String, Map<Integer, Set<Long>>> corruptBytes = new HashMap<>();
    private final Map<String, Double> rateFactors = new HashMap<>();
    private final Set<String> resetNext = new HashSet<>();
    private int robotFailuresLeft;
    private boolean robotFailed;

    SimFaults() {
    }

    /** Every operation on the drive fails with {@code DRIVE} until {@link #restoreDrive}. */
    public synchronized void failDrive(String drive) {
        failedDrives.add(drive);
    }

    /** The next {@code count} operations on the drive fail with {@code DRIVE}. */
    public synchronized void failNextDriveOps(String drive, int count) {
        requireNonNegative(count);
        driveFailuresLeft.put(drive, count);
    }

    /**
     * The drive is reset (a power cycle, a bus reset) just before its next operation: the tape files appended with
     * a buffered mark ({@code appendBuffered}) and not flushed since are lost, and the tape is at block 0. The
     * operation itself then runs as usual. An injected drive failure ({@link #failDrive}, {@link
     * #failNextDriveOps}) loses them too.
     */
    public synchronized void resetDriveBeforeNextOp(String drive) {
        resetNext.add(drive);
    }

    /** Clears {@link #failDrive}, {@link #failNextDriveOps} and {@link #slowDrive} for the drive. */
    public synchronized void restoreDrive(String drive) {
        failedDrives.remove(drive);
        driveFailuresLeft.remove(drive);
        rateFactors.remove(drive);
    }

    /** Reads of the tape file on the cartridge fail with {@code MEDIA} until cleared. */
    public synchronized void mediaError(String barcode, int fileNumber) {
        mediaErrors.computeIfAbsent(barcode, b -> new HashSet<>()).add(fileNumber);
    }

    public synchronized void clearMediaError(String barcode, int fileNumber) {
        Set<Integer> files = mediaErrors.get(barcode);
        if (files != null) {
            files.remove(fileNumber);
        }
    }

    /**
     * Reads of the tape file on the cartridge deliver the byte at {@code offset} (from the tape file's start)
     * inverted, without an error, until cleared: silent corruption, which only a checksum finds. The recorded
     * data stays as written.
     */
    public synchronized void corruptByte(String barcode, int fileNumber, long offset) {
        if (offset < 0) {
            throw new IllegalArgumentException("offset must not be negative: " + offset);
        }
        corruptBytes.computeIfAbsent(barcode, b -> new HashMap<>()).computeIfAbsent(fileNumber, f -> new HashSet<>())
                .add(offset);
    }

    /** Every robot move fails with {@code ROBOT} until {@link #restoreRobot}. */
    public synchronized void failRobot() {
        robotFailed = true;
    }

    /** The next {@code count} robot moves fail with {@code ROBOT}. */
    public synchronized void failNextRobotMoves(int count) {
        requireNonNegative(count);
        robotFailuresLeft = count;
    }

    public synchronized void restoreRobot() {
        robotFailed = false;
        robotFailuresLeft = 0;
    }

    /** The next append to the cartridge fails with {@code TAPE_FULL}, writing nothing. */
    public synchronized void tapeFullOnNextAppend(String barcode) {
        tapeFullNext.add(barcode);
    }

    /** The drive streams at {@code rateFactor} times its media's rate (0.5 = half speed). */
    public synchronized void slowDrive(String drive, double rateFactor) {
        if (!(rateFactor > 0) || Double.isInfinite(rateFactor)) {
            throw new IllegalArgumentException("rate factor must be positive and finite: " + rateFactor);
        }
        rateFactors.put(drive, rateFactor);
    }

    /** Clears every switch. */
    public synchronized void clear() {
        failedDrives.clear();
        driveFailuresLeft.clear();
        mediaErrors.clear();
        tapeFullNext.clear();
        corruptBytes.clear();
        rateFactors.clear();
        resetNext.clear();
        restoreRobot();
    }

    /** Whether an operation starting now on the drive fails; consumes one of the "next N" failures. */
    synchronized boolean driveOpFails(String drive) {
        if (failedDrives.contains(drive)) {
            return true;
        }
        Integer left = driveFailuresLeft.get(drive);
        if (left == null || left == 0) {
            return false;
        }
        if (left == 1) {
            driveFailuresLeft.remove(drive);
        } else {
            driveFailuresLeft.put(drive, left - 1);
        }
        return true;
    }

    /** Whether the drive is to be reset before the operation starting now; consumes the switch. */
    synchronized boolean takeReset(String drive) {
        return resetNext.remove(drive);
    }

    synchronized boolean driveFailed(String drive) {
        return failedDrives.contains(drive);
    }

    /** Whether a robot move starting now fails; consumes one of the "next N" failures. */
    synchronized boolean robotMoveFails() {
        if (robotFailed) {
            return true;
        }
        if (robotFailuresLeft > 0) {
            robotFailuresLeft--;
            return true;
        }
        return false;
    }

    synchronized boolean mediaErrorAt(String barcode, int fileNumber) {
        Set<Integer> files = mediaErrors.get(barcode);
        return files != null && files.contains(fileNumber);
    }

    /** The offsets within the tape file that reads deliver inverted ({@link #corruptByte}); empty if none. */
    synchronized Set<Long> corruptOffsets(String barcode, int fileNumber) {
        Set<Long> offsets = corruptBytes.getOrDefault(barcode, Map.of()).get(fileNumber);
        return offsets == null ? Set.of() : Set.copyOf(offsets);
    }

    /** Whether the next append to the cartridge is to fail; consumes the switch. */
    synchronized boolean takeTapeFull(String barcode) {
        return tapeFullNext.remove(barcode);
    }

    synchronized double rateFactor(String drive) {
        return rateFactors.getOrDefault(drive, 1d);
    }

    private static void requireNonNegative(int count) {
        if (count < 0) {
            throw new IllegalArgumentException("count must not be negative: " + count);
        }
    }
}
