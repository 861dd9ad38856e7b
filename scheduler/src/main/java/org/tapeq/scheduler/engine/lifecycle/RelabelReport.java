package org.tapeq.scheduler.engine.lifecycle;

/**
 * A cartridge's relabel, for status.
 *
 * @param barcode   the cartridge
 * @param family    the family of its new label
 * @param state     {@code queued}, {@code running}, {@code done} or {@code failed}
 * @param requested loop time it was asked for (or resumed at a restart)
 * @param ended     loop time it ended, or 0
 * @param error     why it failed, or null
 */
public record RelabelReport(String barcode, String family, String state, long requested, long ended, String error) {
}
