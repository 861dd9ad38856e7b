package org.tapeq.mover;

import com.google.protobuf.Message;
import io.grpc.MethodDescriptor;
import io.grpc.MethodDescriptor.MethodType;
import io.grpc.ServerServiceDefinition;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ServerCalls;
import org.tapeq.mover.proto.Done;
import org.tapeq.mover.proto.DriveCommand;
import org.tapeq.mover.proto.Fence;
import org.tapeq.mover.proto.HelloReply;
import org.tapeq.mover.proto.HelloRequest;
import org.tapeq.mover.proto.InventoryReply;
import org.tapeq.mover.proto.ReadChunk;
import org.tapeq.mover.proto.WriteChunk;

/**
 * The {@code tapeq.mover.v1.Mover} service of {@code mover.proto} as gRPC method descriptors, with protobuf
 * marshalling: the same wire form generated stubs would use, written out because no code generator binary for
 * this gRPC line is available to the build. One place: the server binds these, the client calls these.
 */
final class MoverRpc {

    static final String SERVICE = "tapeq.mover.v1.Mover";

    static final MethodDescriptor<HelloRequest, HelloReply> HELLO = method("Hello", MethodType.UNARY,
            HelloRequest.getDefaultInstance(), HelloReply.getDefaultInstance());
    static final MethodDescriptor<Fence, InventoryReply> INVENTORY = method("Inventory", MethodType.UNARY,
            Fence.getDefaultInstance(), InventoryReply.getDefaultInstance());
    static final MethodDescriptor<DriveCommand, Done> MOUNT = command("Mount");
    static final MethodDescriptor<DriveCommand, Done> UNMOUNT = command("Unmount");
    static final MethodDescriptor<DriveCommand, Done> LOCATE = command("Locate");
    static final MethodDescriptor<DriveCommand, Done> LOCATE_FILE = command("LocateFile");
    static final MethodDescriptor<DriveCommand, Done> ACCESS_ORDER = command("AccessOrder");
    static final MethodDescriptor<DriveCommand, Done> FLUSH = command("Flush");
    static final MethodDescriptor<DriveCommand, Done> ROBOT_LOAD = command("RobotLoad");
    static final MethodDescriptor<DriveCommand, Done> ROBOT_UNLOAD = command("RobotUnload");
    static final MethodDescriptor<DriveCommand, Done> LOAD = command("Load");
    static final MethodDescriptor<DriveCommand, Done> UNLOAD = command("Unload");
    static final MethodDescriptor<DriveCommand, ReadChunk> READ = method("Read", MethodType.SERVER_STREAMING,
            DriveCommand.getDefaultInstance(), ReadChunk.getDefaultInstance());
    static final MethodDescriptor<WriteChunk, Done> WRITE = method("Write", MethodType.CLIENT_STREAMING,
            WriteChunk.getDefaultInstance(), Done.getDefaultInstance());

    private MoverRpc() {
    }

    private static MethodDescriptor<DriveCommand, Done> command(String name) {
        return method(name, MethodType.UNARY, DriveCommand.getDefaultInstance(), Done.getDefaultInstance());
    }

    private static <Q extends Message, A extends Message> MethodDescriptor<Q, A> method(String name, MethodType type,
                                                                                        Q request, A answer) {
        return MethodDescriptor.<Q, A>newBuilder().setType(type)
                .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, name))
                .setRequestMarshaller(ProtoUtils.marshaller(request))
                .setResponseMarshaller(ProtoUtils.marshaller(answer)).build();
    }

    /** The service with each method answered by {@code s}. */
    static ServerServiceDefinition bind(MoverService s) {
        return ServerServiceDefinition.builder(SERVICE)
                .addMethod(HELLO, ServerCalls.asyncUnaryCall(s::hello))
                .addMethod(INVENTORY, ServerCalls.asyncUnaryCall(s::inventory))
                .addMethod(MOUNT, ServerCalls.asyncUnaryCall(s::mount))
                .addMethod(UNMOUNT, ServerCalls.asyncUnaryCall(s::unmount))
                .addMethod(LOCATE, ServerCalls.asyncUnaryCall(s::locate))
                .addMethod(LOCATE_FILE, ServerCalls.asyncUnaryCall(s::locateFile))
                .addMethod(ACCESS_ORDER, ServerCalls.asyncUnaryCall(s::accessOrder))
                .addMethod(FLUSH, ServerCalls.asyncUnaryCall(s::flush))
                .addMethod(READ, ServerCalls.asyncServerStreamingCall(s::read))
                .addMethod(WRITE, ServerCalls.asyncClientStreamingCall(s::write))
                .addMethod(ROBOT_LOAD, ServerCalls.asyncUnaryCall(s::robotLoad))
                .addMethod(ROBOT_UNLOAD, ServerCalls.asyncUnaryCall(s::robotUnload))
                .addMethod(LOAD, ServerCalls.asyncUnaryCall(s::load))
                .addMethod(UNLOAD, ServerCalls.asyncUnaryCall(s::unload))
                .build();
    }
}
