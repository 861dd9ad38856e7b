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
    private static final long KEEPALIVE_SECONDS = 30;
    private static final long KEEPALIVE_TIMEOUT_SECONDS = 10;
    private static final long CLOSE_WAIT_SECONDS = 5;

    private final MoverEndpoint endpoint;
    private final ManagedChannel channel;
    private final String scheduler;
    private final SiteIdentity identity;

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

    /** Whether a failed call means the mover could not be reached (not that it answered with an error). */
    static boolean unreachable(Throwable t) {
        Status.Code c = Status.fromThrowable(t).getCode();
        return c == Status.Code.UNAVAILABLE || c == Status.Code.DEADLINE_EXCEEDED || c == Status.Code.CANCELLED
                || c == Status.Code.UNKNOWN && t.getCause() instanceof java.io.IOException;
    }

    /** Whether a failed call only ran past its deadline (the mover may be slow, not gone). */
    static boolean slow(Throwable t) {
        return Status.fromThrowable(t).getCode() == Status.Code.DEADLINE_EXCEEDED;
    }

    /** Why a call failed: its gRPC status and description. */
    String unreachableReason(Throwable t) {
        Status s = Status.fromThrowable(t);
        return s.getCode() + (s.getDescription() == null ? "" : " (" + s.getDescription() + ")");
    }

    @Override
    public void close() {
        channel.shutdownNow();
        try {
            channel.awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
