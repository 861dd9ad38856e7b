package org.tapeq.mover;

import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import org.tapeq.mover.proto.DriveCommand;
import org.tapeq.mover.proto.Fence;
import org.tapeq.mover.proto.HelloReply;
import org.tapeq.mover.proto.HelloRequest;

/**
 * The scheduler's channel to one mover: its name, its drives, and calls with a deadline each. Callbacks run on
 * the executor given (never the scheduler's loop). Any thread.
 */
final class MoverClient implements AutoCloseable {

    /** A channel idle this long sends a keepalive ping; one unanswered this long fails its calls (a host gone). */
    static final long KEEPALIVE_SECONDS = 30;
    private static final long KEEPALIVE_TIMEOUT_SECONDS = 10;
    private static final long CLOSE_WAIT_SECONDS = 5;

    private final MoverEndpoint endpoint;
    private final ManagedChannel channel;
    private final String scheduler;
    private final SiteIdentity identity;
    private volatile boolean closed;
    /** Whether the mover said in its last hello that it reads and writes the pool files itself. */
    private volatile boolean sharedPools;

    /**
     * The cause this scheduler gives a call it cancels itself (its source or target failed, no thread to send
     * with): the call's {@code CANCELLED} then says nothing of the mover.
     */
    static final class CancelledHere extends Exception {
        CancelledHere(String why, Throwable cause) {
            super(why, cause);
        }
    }

    MoverClient(MoverEndpoint endpoint, String scheduler, SiteIdentity identity, Executor callbacks) {
        this.endpoint = endpoint;
        this.scheduler = scheduler;
        this.identity = identity;
        this.channel = NettyChannelBuilder.forAddress(endpoint.host(), endpoint.port()).usePlaintext()
                .executor(callbacks).keepAliveTime(KEEPALIVE_SECONDS, TimeUnit.SECONDS)
                .keepAliveTimeout(KEEPALIVE_TIMEOUT_SECONDS, TimeUnit.SECONDS).keepAliveWithoutCalls(true).build();
    }

    String name() {
        return endpoint.name();
    }

    /** Whether the mover reads and writes the pool files itself (its last hello said so). */
    boolean sharedPools() {
        return sharedPools;
    }

    void sharedPools(boolean shared) {
        sharedPools = shared;
    }

    /** host:port, for messages. */
    String address() {
        return endpoint.host() + ":" + endpoint.port();
    }

    List<String> drives() {
        return endpoint.drives();
    }

    Fence fence(long epoch) {
        return identity.fence().setEpoch(epoch).setScheduler(scheduler).build();
    }

    DriveCommand.Builder command(long epoch, String drive) {
        return DriveCommand.newBuilder().setFence(fence(epoch)).setDrive(drive);
    }

    /** A new call of {@code method} that must end within {@code deadlineMillis}. */
    <Q, A> ClientCall<Q, A> call(MethodDescriptor<Q, A> method, long deadlineMillis) {
        return channel.newCall(method, CallOptions.DEFAULT.withDeadlineAfter(deadlineMillis, TimeUnit.MILLISECONDS));
    }

    /** As {@link #call(MethodDescriptor, long)}, its callbacks on {@code callbacks} instead of the channel's. */
    <Q, A> ClientCall<Q, A> call(MethodDescriptor<Q, A> method, long deadlineMillis, Executor callbacks) {
        return channel.newCall(method, CallOptions.DEFAULT.withDeadlineAfter(deadlineMillis, TimeUnit.MILLISECONDS)
                .withExecutor(callbacks));
    }

    <Q, A> void unary(MethodDescriptor<Q, A> method, Q request, long deadlineMillis, StreamObserver<A> answer) {
        ClientCalls.asyncUnaryCall(call(method, deadlineMillis), request, answer);
    }

    void hello(long epoch, long deadlineMillis, StreamObserver<HelloReply> answer) {
        unary(MoverRpc.HELLO, HelloRequest.newBuilder().setFence(fence(epoch)).build(), deadlineMillis, answer);
    }

    /** Tries to connect at the next call instead of after the backoff of earlier failed attempts. */
    void reconnectNow() {
        channel.resetConnectBackoff();
    }

    /**
     * Whether a failed call means the mover could not be reached (not that it answered with an error): its
     * connection failed, or the mover's side cancelled it (a stopping server resets its calls). A call this
     * scheduler cancelled itself ({@link CancelledHere}) and one past its deadline ({@link #slow}) are not.
     */
    static boolean unreachable(Throwable t) {
        Status s = Status.fromThrowable(t);
        Status.Code c = s.getCode();
        return c == Status.Code.UNAVAILABLE || c == Status.Code.CANCELLED && !cancelledHere(t)
                || c == Status.Code.UNKNOWN && t.getCause() instanceof java.io.IOException;
    }

    /** Whether this scheduler cancelled the call itself ({@link CancelledHere}). */
    static boolean cancelledHere(Throwable t) {
        Status s = Status.fromThrowable(t);
        return s.getCode() == Status.Code.CANCELLED && s.getCause() instanceof CancelledHere;
    }

    /**
     * Whether a failed call ran past its deadline: the mover may be slow, not gone, and the command may still run
     * there, so its outcome is unknown (a probe counts it; a drive command asks the mover again, RemoteLibrary).
     */
    static boolean slow(Throwable t) {
        return Status.fromThrowable(t).getCode() == Status.Code.DEADLINE_EXCEEDED;
    }

    /** Whether this client is closing or closed: its calls then fail for that reason, not for the mover's. */
    boolean closed() {
        return closed;
    }

    /** Why a call failed: its gRPC status and description. */
    String unreachableReason(Throwable t) {
        Status s = Status.fromThrowable(t);
        return s.getCode() + (s.getDescription() == null ? "" : " (" + s.getDescription() + ")");
    }

    @Override
    public void close() {
        closed = true;
        channel.shutdownNow();
        try {
            channel.awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
