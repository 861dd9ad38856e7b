/**
 * The request-directory protocol between a dCache pool and a tape daemon: ENDIT's on-disk format plus
 * tapeq's extensions, as specified in {@code docs/protocol.md}. This package is the only code that names,
 * writes and parses protocol files; the provider and the daemon both use it.
 */
package org.tapeq.protocol;
