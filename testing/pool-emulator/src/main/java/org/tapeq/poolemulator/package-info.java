/**
 * A dCache pool emulator: creates flush, stage and remove requests that behave like dCache's own
 * (activation, allocation, deadlines counted from activation, cancellation, exactly-once completion) and
 * hands them to any {@link org.dcache.pool.nearline.spi.NearlineStorage}, recording every protocol
 * violation a real pool would trip over.
 */
package org.tapeq.poolemulator;
