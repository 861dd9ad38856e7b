package org.tapeq.scheduler.tape.scsi;

import java.io.FilterInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/** Streams that tell a command's deadline about every chunk of data that moves. */
final class Progress {

    private Progress() {
    }

    static final class In extends FilterInputStream {
        private final CommandRunner.Deadline deadline;

        In(InputStream in, CommandRunner.Deadline deadline) {
            super(in);
            this.deadline = deadline;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            deadline.progressed();
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = in.read(b, off, len);
            deadline.progressed();
            return n;
        }
    }

    static final class Out extends FilterOutputStream {
        private final CommandRunner.Deadline deadline;

        Out(OutputStream out, CommandRunner.Deadline deadline) {
            super(out);
            this.deadline = deadline;
        }

        @Override
        public void write(int b) throws IOException {
            out.write(b);
            deadline.progressed();
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
            deadline.progressed();
        }
    }
}
