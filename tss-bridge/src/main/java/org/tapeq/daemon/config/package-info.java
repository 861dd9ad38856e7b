/**
 * The daemon's YAML configuration ({@code /etc/tapeq/tapeq.yaml}; every key in docs/tapeq.example.yaml):
 * parsed once at start by {@link org.tapeq.daemon.config.DaemonConfig}, immutable afterwards.
 */
package org.tapeq.daemon.config;
