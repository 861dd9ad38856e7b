/**
 * A simulated tape library: {@link org.tapeq.scheduler.tape.sim.SimulatedLibrary} implements
 * {@link org.tapeq.scheduler.tape.TapeLibrary} on an event loop with its own physical tape model (serpentine
 * wraps, locate and rewind times calibrated to vendor figures, robot arms, filemark cost), real or size-only data
 * (size-only: staged files are sparse files of the right length, zeros), fault switches ({@link org.tapeq.scheduler.tape.sim.SimFaults}) and statistics
 * ({@link org.tapeq.scheduler.tape.sim.SimStats}). It is the ground truth schedulers are measured against, so it
 * uses no scheduler cost estimate.
 */
package org.tapeq.scheduler.tape.sim;
