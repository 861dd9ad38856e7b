package org.tapeq.mover;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;

/**
 * A transfer's output that can be stopped (a newer lease epoch, or the caller gave up on the call): every write
 * after {@link #stop} fails, so the library aborts the transfer (and keeps no partial tape file), as when a
 * streamed transfer's channel is cut.
 */
final class StoppableOutput extends FilterOutputStream {

    private volatile boolean stopped;

    StoppableOutput(OutputStream out) {
        super(out);
    }

    void stop() {
        stopped = true;
    }

    @Override
    public void write(int b) throws IOException {
        check();
        out.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        check();
        out.write(b, off, len);
    }

    private void check() throws IOException {
        if (stopped) {
            throw new IOException("stopped: a newer lease epoch has taken the site over, or the caller gave up");
        }
    }
}
