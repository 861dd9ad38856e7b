package org.tapeq.scheduler.tape.scsi;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

import org.tapeq.scheduler.tape.ByteSink;

/** The streams between a data command's pipes and the library's sources and sinks, and how each can fail. */
final class Pipes {

    private Pipes() {
    }

    /** The pipe to or from the tape host failed (the command died): the command's own error tells why. */
    static final class PipeFailure extends IOException {
        PipeFailure(IOException cause) {
            super(cause.getMessage(), cause);
        }
    }

    /** Passes bytes to a read's sink until shut; then refuses them, so an abandoned transfer writes nothing. */
    static final class Gate {
        private volatile boolean shut;

        OutputStream open(ByteSink sink) throws IOException {
            OutputStream out = sink.open();
            return new FilterOutputStream(out) {
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
            };
        }

        private void check() throws IOException {
            if (shut) {
                throw new IOException("the transfer was abandoned");
            }
        }

        void shut() {
            shut = true;
        }
    }

    /** The sink a read delivers to failed. */
    static final class SinkFailure extends IOException {
        SinkFailure(IOException cause) {
            super(cause.getMessage(), cause);
        }
    }

    /** Counts what the source writes and marks failures of the pipe itself. */
    static final class CountingPipe extends OutputStream {
        private final OutputStream out;
        long count;

        CountingPipe(OutputStream out) {
            this.out = out;
        }

        @Override
        public void write(int b) throws IOException {
            try {
                out.write(b);
            } catch (IOException e) {
                throw new PipeFailure(e);
            }
            count++;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            try {
                out.write(b, off, len);
            } catch (IOException e) {
                throw new PipeFailure(e);
            }
            count += len;
        }

        @Override
        public void flush() throws IOException {
            try {
                out.flush();
            } catch (IOException e) {
                throw new PipeFailure(e);
            }
        }

        @Override
        public void close() {
            // the runner closes the command's standard input
        }
    }

    /** Skips {@code skip} bytes of the stream, copies up to {@code length}, and returns how many were copied. */
    static long copy(InputStream in, long skip, long length, OutputStream out) throws IOException {
        byte[] buf = new byte[256 * 1024];
        long toSkip = skip;
        long copied = 0;
        while (copied < length) {
            int n = readPipe(in, buf);
            if (n < 0) {
                break;
            }
            int from = 0;
            if (toSkip > 0) {
                int s = (int) Math.min(toSkip, n);
                toSkip -= s;
                from = s;
            }
            int take = (int) Math.min(n - from, length - copied);
            if (take > 0) {
                try {
                    out.write(buf, from, take);
                } catch (IOException e) {
                    throw new Pipes.SinkFailure(e);
                }
                copied += take;
            }
        }
        return copied;
    }

    private static int readPipe(InputStream in, byte[] buf) throws Pipes.PipeFailure {
        try {
            return in.read(buf);
        } catch (IOException e) {
            throw new Pipes.PipeFailure(e);
        }
    }
}
