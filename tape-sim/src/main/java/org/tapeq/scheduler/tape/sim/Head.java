package org.tapeq.scheduler.tape.sim;

/**
 * Physical position of a drive's head on the mounted tape.
 *
 * @param offset byte offset in the recorded data
 * @param wrap   wrap under the head
 * @param lpos   longitudinal position in metres from BOT
 */
record Head(long offset, int wrap, double lpos) {

    /** +1 when the tape moves BOT to EOT (even wraps), -1 otherwise. */
    int direction() {
        return (wrap & 1) == 0 ? 1 : -1;
    }
}
