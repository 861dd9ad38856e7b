/**
 * Catalogs and size-only simulated libraries filled through the real scheduler in virtual time, as a daemon would
 * have written them: the inputs of the load test and the daemon benchmarks, and of a standby's takeover rehearsal.
 */
package org.tapeq.daemon.rehearsal;
