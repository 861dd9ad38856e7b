package org.tapeq.scheduler.policy;

/** A candidate order with its estimated locate seconds. */
record Tour(int[] order, double cost) {
}
