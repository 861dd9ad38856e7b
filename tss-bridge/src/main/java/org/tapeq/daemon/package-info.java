/** The tapeq daemon: serves ENDIT-style request directories with the tape scheduler. */
package org.tapeq.daemon;
