package org.tapeq.scheduler.catalog;

/**
 * A drive's administrative state, kept across restarts.
 *
 * @param up          false if taken out of service (by an administrator or after repeated errors)
 * @param reason      why it is down, or null
 * @param errorCount  consecutive errors seen
 */
public record DriveRecord(String id, boolean up, String reason, int errorCount, long updatedAt) {
}
