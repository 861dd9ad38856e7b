/**
 * tapeq's dCache nearline storage plugin: flush, stage and remove requests become files in an ENDIT-style
 * request directory and complete when a tape daemon answers there (docs/provider.md, docs/protocol.md).
 */
package org.tapeq.provider;
