package org.tapeq.loadtest.run;

/**
 * One transfer on tape during the measured phase: {@code bytes} read (one read of a pass: the members of one tape
 * file read in one go) or written (one aggregate) on {@code drive}, from {@code startMillis} to {@code endMillis}
 * of library time since the phase began (the start of a transfer begun before it is 0).
 */
public record Transfer(String drive, boolean write, long bytes, double startMillis, double endMillis) {
}
