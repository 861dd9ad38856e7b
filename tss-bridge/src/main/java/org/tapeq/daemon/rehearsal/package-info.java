/**
 * Catalogs and size-only simulated libraries filled through the real scheduler in virtual time, as a daemon would
 * have written them: the inputs of the load test and the daemon benchmarks, and of a standby's takeover rehearsal;
 * and the removal of the scratch trees these leave.
 */
package org.tapeq.daemon.rehearsal;
