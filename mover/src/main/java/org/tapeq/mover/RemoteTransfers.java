package org.tapeq.mover;

import java.io.IOException;
import java.io.OutputStream;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.StreamObserver;
import org.tapeq.mover.proto.Done;
import org.tapeq.mover.proto.DriveCommand;
import org.tapeq.mover.proto.ReadChunk;
import org.tapeq.mover.proto.WriteChunk;
import org.tapeq.mover.proto.Written;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.ByteSink;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.StageFiles;
import org.tapeq.scheduler.tape.TapeFileSource;
import org.tapeq.scheduler.tape.WrittenFile;
import org.tapeq.scheduler.time.Threads;

/**
 * The scheduler's side of the byte-moving commands. To a mover with {@code pools.shared} a read whose sink has a
 * described form ({@link StageFiles}) names the files and the mover writes them itself, only its report comes
 * back; a write whose source has one ({@code TapeFileSource.described}) sends the description and no data.
 * Otherwise the bytes cross the gRPC channel (docs/architecture.md, "Where the bytes flow"): a read's chunks are
 * written to the stage target as they arrive, on the call's callback thread, and gRPC asks the mover for the next
 * chunk only after that (inbound flow control); a write's source is copied on {@code tapeq-mover-send-N}, one
 * thread per drive at most, each chunk sent when the channel can take it ({@link ReadyGate}).
 */
final class RemoteTransfers implements AutoCloseable {

    private final RemoteLibrary library;
    private final ThreadPoolExecutor send;
    /** A read's callbacks, which write the staged bytes to disk: never on the shared call threads. */
    private final ThreadPoolExecutor receive;
    private final long stallMillis;
    private final java.util.concurrent.atomic.AtomicLong streamed = new java.util.concurrent.atomic.AtomicLong();

    RemoteTransfers(RemoteLibrary library, int drives, long stallMillis) {
        this.library = library;
        this.stallMillis = stallMillis;
        int threads = Math.max(1, drives);
        // one write per drive at a time: a full pool means a second write to a drive, refused (AbortPolicy)
        this.send = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(threads),
                Threads.numbered("tapeq-mover-send"), new ThreadPoolExecutor.AbortPolicy());
        // gRPC runs one callback of a call at a time: one thread per drive suffices, each with a few queued
        this.receive = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(threads * RECEIVE_QUEUE_PER_DRIVE), Threads.numbered("tapeq-mover-receive"),
                new ThreadPoolExecutor.AbortPolicy());
    }

    /** Callbacks waiting per drive for a receive thread (a read's call has at most one waiting at a time). */
    private static final int RECEIVE_QUEUE_PER_DRIVE = 16;

    void read(MoverClient m, DriveCommand c, ByteSink sink, Completion<Long> done) {
        StageFiles files = m.sharedPools() ? sink.files() : null;
        if (files != null) {
            readIntoFiles(m, PoolReads.described(c, files), files, done);
            return;
        }
        String what = "read on drive " + c.getDrive();
        ClientCalls.asyncServerStreamingCall(m.call(MoverRpc.READ, library.siteCommandMillis(), receive), c,
                new ClientResponseObserver<DriveCommand, ReadChunk>() {
                    private ClientCallStreamObserver<DriveCommand> call;
                    private OutputStream target;
                    private IOException targetError;
                    private Done answer;
                    private long received;

                    @Override
                    public void beforeStart(ClientCallStreamObserver<DriveCommand> s) {
                        call = s;
                    }

                    @Override
                    public void onNext(ReadChunk chunk) {
                        if (chunk.hasDone()) {
                            answer = chunk.getDone();
                            return;
                        }
                        if (targetError != null) {
                            return;
                        }
                        try {
                            if (target == null) {
                                target = sink.open();
                            }
                            chunk.getData().writeTo(target);
                            received += chunk.getData().size();
                            streamed.addAndGet(chunk.getData().size());
                        } catch (IOException e) {
                            targetError = e;
                            call.cancel("the stage target failed", new MoverClient.CancelledHere(
                                    "the stage target failed", e));
                        }
                    }

                    @Override
                    public void onError(Throwable t) {
                        closeTarget();
                        if (targetError != null) {
                            library.loop().execute(() -> done.failed(new TapeFault(FaultKind.TARGET, what
                                    + ": writing the staged bytes failed: " + targetError, targetError)));
                        } else {
                            library.failed(m, what, t, done);
                        }
                    }

                    @Override
                    public void onCompleted() {
                        // A library that hands over no bytes at all (the size-only simulation) reports the length
                        // read and never opens the target, as it does on the scheduler's own host (the scheduler
                        // then accounts the length alone): so does its read through a mover.
                        boolean sizeOnly = answer != null && !answer.hasFault() && target == null
                                && answer.getValue() > 0;
                        if (answer != null && !answer.hasFault() && target == null && !sizeOnly) {
                            try {
                                target = sink.open(); // nothing delivered: the target exists all the same
                            } catch (IOException e) {
                                targetError = e;
                            }
                        }
                        closeTarget();
                        if (targetError != null) {
                            onError(targetError);
                        } else if (answer == null) {
                            library.failed(m, what, new IOException("the mover ended the read without an answer"),
                                    done);
                        } else if (!answer.hasFault() && !sizeOnly && answer.getValue() != received) {
                            library.loop().execute(() -> done.failed(new TapeFault(FaultKind.DRIVE, what
                                    + ": mover " + m.name() + " reports " + answer.getValue() + " bytes read, "
                                    + received + " arrived (stream cut short)")));
                        } else {
                            library.answered(m, c.getDrive(), answer, done, Done::getValue, d -> { });
                        }
                    }

                    private void closeTarget() {
                        if (target != null) {
                            try {
                                target.close();
                            } catch (IOException e) {
                                if (targetError == null) {
                                    targetError = e;
                                }
                            }
                            target = null;
                        }
                    }
                });
    }

    /**
     * A read the mover delivers into the pool files {@code c} names: no data crosses the stream, the answer
     * reports each file, and {@code files} takes the reports before the completion, so the engine checks sizes
     * and checksums as for streamed bytes. An answer with data, or with another number of files, fails the read.
     */
    private void readIntoFiles(MoverClient m, DriveCommand c, StageFiles files, Completion<Long> done) {
        String what = "read into pool files on drive " + c.getDrive();
        ClientCalls.asyncServerStreamingCall(m.call(MoverRpc.READ, library.siteCommandMillis(), receive), c,
                new StreamObserver<ReadChunk>() {
                    private Done answer;
                    private long data;

                    @Override
                    public void onNext(ReadChunk chunk) {
                        if (chunk.hasDone()) {
                            answer = chunk.getDone();
                        } else {
                            data += chunk.getData().size();
                            streamed.addAndGet(chunk.getData().size());
                        }
                    }

                    @Override
                    public void onError(Throwable t) {
                        library.failed(m, what, t, done);
                    }

                    @Override
                    public void onCompleted() {
                        String wrong = answer == null ? null : wrong(answer, files, data);
                        if (answer == null) {
                            library.failed(m, what, new IOException("the mover ended the read without an answer"),
                                    done);
                        } else if (wrong != null) {
                            library.loop().execute(() -> done.failed(new TapeFault(FaultKind.DRIVE, what + ": mover "
                                    + m.name() + " " + wrong)));
                        } else {
                            if (!answer.hasFault()) {
                                files.reported(answer.getValue(), PoolReads.results(answer));
                            }
                            library.answered(m, c.getDrive(), answer, done, Done::getValue, d -> { });
                        }
                    }
                });
    }

    /** What is wrong with a mover's answer to a read into files, or null. */
    private static String wrong(Done answer, StageFiles files, long data) {
        if (data > 0) {
            return "sent " + data + " bytes of a read it was to deliver into the pool files itself";
        }
        if (!answer.hasFault() && answer.getFilesCount() != files.members().size()) {
            return "reports " + answer.getFilesCount() + " files of " + files.members().size();
        }
        return null;
    }

    /** Read and write bytes that crossed the channels so far. */
    long streamedBytes() {
        return streamed.get();
    }

    void write(MoverClient m, DriveCommand c, TapeFileSource source, Completion<WrittenFile> done) {
        org.tapeq.scheduler.tape.DescribedSource described = m.sharedPools() ? source.described() : null;
        String what = (c.getLabel() ? "label write" : "append") + (described != null ? " from pool files" : "")
                + " on drive " + c.getDrive();
        ReadyGate[] gate = new ReadyGate[1];
        AtomicReference<Exception> sourceError = new AtomicReference<>();
        StreamObserver<WriteChunk> out = ClientCalls.asyncClientStreamingCall(
                m.call(MoverRpc.WRITE, library.siteCommandMillis()), new ClientResponseObserver<WriteChunk, Done>() {
                    private Done answer;

                    @Override
                    public void beforeStart(ClientCallStreamObserver<WriteChunk> s) {
                        gate[0] = new ReadyGate(s, stallMillis);
                        s.setOnReadyHandler(gate[0]);
                    }

                    @Override
                    public void onNext(Done d) {
                        answer = d;
                    }

                    @Override
                    public void onError(Throwable t) {
                        gate[0].close();
                        library.failed(m, what, t, done);
                    }

                    @Override
                    public void onCompleted() {
                        gate[0].close();
                        // not sent whole: whatever the mover answered (a stream cut short reads to it as a
                        // source that failed), the fault is this side's view of why
                        TapeFault notSent = notSent(what, m, gate[0].failure(), sourceError.get());
                        if (notSent != null) {
                            library.loop().execute(() -> done.failed(notSent));
                        } else if (answer != null && answer.hasWritten()
                                && answer.getWritten().getBytes() != c.getLength()) {
                            library.loop().execute(() -> done.failed(new TapeFault(FaultKind.DRIVE, what
                                    + ": mover " + m.name() + " wrote " + answer.getWritten().getBytes()
                                    + " bytes of " + c.getLength())));
                        } else {
                            library.answered(m, c.getDrive(), answer, done, d -> written(d.getWritten()), d -> { });
                        }
                    }
                });
        if (described != null) { // the mover writes from the pool files itself: the command alone
            out.onNext(WriteChunk.newBuilder().setCommand(PoolWrites.described(c, described)).build());
            out.onCompleted();
            return;
        }
        try {
            send.execute(() -> copy(c, source, out, gate[0], sourceError));
        } catch (RejectedExecutionException e) {
            out.onError(new MoverClient.CancelledHere("no thread free to send the write", e));
        }
    }

    /**
     * Sends the command, then the source's bytes; a source that fails half-closes the stream short, so the
     * mover records nothing and answers with a {@code SOURCE} fault (the drive is free when the answer comes).
     */
    private void copy(DriveCommand c, TapeFileSource source, StreamObserver<WriteChunk> out, ReadyGate gate,
                             AtomicReference<Exception> sourceError) {
        try {
            out.onNext(WriteChunk.newBuilder().setCommand(c).build());
            try (ChunkedOutput data = new ChunkedOutput(gate, b -> {
                out.onNext(WriteChunk.newBuilder().setData(b).build());
                streamed.addAndGet(b.size());
            })) {
                source.writeTo(data);
            }
        } catch (IOException | RuntimeException e) {
            sourceError.set(e); // before the half-close: the mover's answer, which names it, comes after
        }
        out.onCompleted();
    }

    /**
     * Why a file was not sent whole, or null: the stream's own failure (the mover took nothing for the stall
     * timeout, or the call ended first) is a {@code DRIVE} fault, not the data's; only an exception of the source
     * is a {@code SOURCE} fault. Whatever the mover answered, a file not sent whole was not written or verified.
     */
    static TapeFault notSent(String what, MoverClient m, String gateFailure, Exception sourceError) {
        if (gateFailure != null) {
            return new TapeFault(FaultKind.DRIVE, what + ": sending to mover " + m.name() + " failed: " + gateFailure,
                    sourceError);
        }
        if (sourceError != null) {
            return new TapeFault(FaultKind.SOURCE, what + ": reading the file to write failed: " + sourceError,
                    sourceError);
        }
        return null;
    }

    private static WrittenFile written(Written w) {
        return new WrittenFile(w.getFileNumber(), w.getStartBlock(), w.getBlockCount(), w.getBytes());
    }

    @Override
    public void close() {
        send.shutdownNow();
        receive.shutdownNow();
    }
}
