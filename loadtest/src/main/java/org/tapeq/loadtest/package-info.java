/**
 * {@code tapeq loadtest}: replays tape-challenge (DT, A-DT), carousel, burst and mixed workloads through the real
 * provider plugin (driven by the dCache pool emulator) against a live daemon, and reports throughput, queue depth,
 * mounts and latency with pass/fail against the scenario's targets. {@code scenario/} reads the YAML scenarios,
 * {@code run/} plans and drives a run against a target, {@code report/} turns what was recorded into the report.
 */
package org.tapeq.loadtest;
