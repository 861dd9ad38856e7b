package org.tapeq.scheduler.tape.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Random;
import java.util.function.Consumer;

import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.ByteSink;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.Inventory;
import org.tapeq.scheduler.tape.TapeFileSource;
import org.tapeq.scheduler.tape.WrittenFile;
import org.tapeq.scheduler.time.EventLoop;
import org.tapeq.scheduler.time.VirtualEventLoop;

/** Drives a simulated library on a virtual loop, one operation at a time, for tests. */
final class SimHarness {

    final VirtualEventLoop loop;
    final SimulatedLibrary library;

    SimHarness(VirtualEventLoop loop, SimulatedLibrary library) {
        this.loop = loop;
        this.library = library;
    }

    /** One completion, checked to be called exactly once, on the loop; remembers when. */
    static final class Result<T> implements Completion<T> {
        private final EventLoop loop;
        private T value;
        private TapeFault fault;
        private boolean done;
        private long at = -1;

        Result(EventLoop loop) {
            this.loop = loop;
        }

        @Override
        public synchronized void succeeded(T v) {
            complete();
            value = v;
        }

        @Override
        public synchronized void failed(TapeFault f) {
            complete();
            fault = f;
        }

        private void complete() {
            if (done) {
                fail("completion called twice");
            }
            assertTrue(loop.inLoop(), "completion must run on the loop");
            done = true;
            at = loop.now();
            notifyAll();
        }

        synchronized boolean done() {
            return done;
        }

        synchronized boolean failed() {
            assertTrue(done, "operation did not complete");
            return fault != null;
        }

        synchronized T get() {
            assertTrue(done, "operation did not complete");
            if (fault != null) {
                fail("unexpected fault " + fault, fault);
            }
            return value;
        }

        synchronized TapeFault fault() {
            assertTrue(done, "operation did not complete");
            if (fault == null) {
                fail("expected a fault, got " + value);
            }
            return fault;
        }

        synchronized TapeFault fault(FaultKind kind) {
            TapeFault f = fault();
            assertEquals(kind, f.kind(), f.toString());
            return f;
        }

        synchronized long at() {
            return at;
        }

        synchronized Result<T> await(long millis) throws InterruptedException {
            long deadline = System.currentTimeMillis() + millis;
            while (!done && System.currentTimeMillis() < deadline) {
                wait(Math.max(1, deadline - System.currentTimeMillis()));
            }
            return this;
        }
    }

    /** Starts an operation and runs the loop until nothing is left. */
    <T> Result<T> run(Consumer<Completion<T>> operation) {
        Result<T> result = new Result<>(loop);
        operation.accept(result);
        loop.runUntilIdle();
        assertTrue(result.done(), "operation did not complete");
        return result;
    }

    void mount(String drive, String barcode) {
        run((Completion<Void> c) -> library.mount(drive, barcode, c)).get();
    }

    void unmount(String drive) {
        run((Completion<Void> c) -> library.unmount(drive, c)).get();
    }

    void locate(String drive, long block) {
        run((Completion<Void> c) -> library.locate(drive, block, c)).get();
    }

    long locateFile(String drive, int file) {
        return run((Completion<Long> c) -> library.locateFile(drive, file, c)).get();
    }

    WrittenFile append(String drive, TapeFileSource source) {
        return run((Completion<WrittenFile> c) -> library.append(drive, source, c)).get();
    }

    WrittenFile label(String drive, TapeFileSource source) {
        return run((Completion<WrittenFile> c) -> library.writeLabel(drive, source, c)).get();
    }

    /** Reads into a byte array (BYTES mode). */
    byte[] read(String drive, long skip, long length) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        long n = run((Completion<Long> c) -> library.read(drive, skip, length, () -> out, c)).get();
        assertEquals(n, out.size(), "bytes delivered vs. bytes in the sink");
        return out.toByteArray();
    }

    /** Reads and returns the count only (SIZE_ONLY mode). */
    long readCount(String drive, long skip, long length) {
        return run((Completion<Long> c) -> library.read(drive, skip, length, ByteSink.DISCARD, c)).get();
    }

    Inventory inventory() {
        return run(library::inventory).get();
    }

    /** Loop milliseconds an operation took. */
    <T> long timed(Consumer<Completion<T>> operation) {
        long start = loop.now();
        Result<T> r = run(operation);
        r.get();
        return r.at() - start;
    }

    static byte[] randomBytes(long seed, int length) {
        byte[] data = new byte[length];
        new Random(seed).nextBytes(data);
        return data;
    }

    static TapeFileSource bytes(byte[] data) {
        return new TapeFileSource() {
            @Override
            public long length() {
                return data.length;
            }

            @Override
            public void writeTo(OutputStream out) throws IOException {
                // In odd-sized pieces, to exercise the stream's bookkeeping.
                int off = 0;
                while (off < data.length) {
                    int n = Math.min(7919, data.length - off);
                    out.write(data, off, n);
                    off += n;
                }
            }
        };
    }

    /** A source of a given length whose content must never be asked for (SIZE_ONLY). */
    static TapeFileSource size(long length) {
        return new TapeFileSource() {
            @Override
            public long length() {
                return length;
            }

            @Override
            public void writeTo(OutputStream out) {
                throw new AssertionError("writeTo must not be called in SIZE_ONLY mode");
            }
        };
    }

    static final long MB = 1_000_000L;
    static final long GB = 1_000_000_000L;
}
