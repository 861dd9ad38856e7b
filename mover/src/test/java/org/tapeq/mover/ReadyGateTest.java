package org.tapeq.mover;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;

import io.grpc.stub.CallStreamObserver;
import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.TapeFault;

/**
 * A write the mover took nothing of (a stall) is the transport's failure, a {@code DRIVE} fault; only the
 * source's own exception is a {@code SOURCE} fault.
 */
class ReadyGateTest {

    /** A stream that never becomes ready. */
    private static final class NeverReady extends CallStreamObserver<Object> {
        @Override public boolean isReady() { return false; }
        @Override public void setOnReadyHandler(Runnable r) { }
        @Override public void disableAutoInboundFlowControl() { }
        @Override public void request(int count) { }
        @Override public void setMessageCompression(boolean enable) { }
        @Override public void onNext(Object value) { }
        @Override public void onError(Throwable t) { }
        @Override public void onCompleted() { }
    }

    @Test
    void aStallIsADriveFault_aSourceExceptionASourceFault() throws Exception {
        ReadyGate gate = new ReadyGate(new NeverReady(), 50);
        assertNull(gate.failure());
        IOException stall = assertThrows(IOException.class, gate::await);
        assertEquals("the other side took nothing for 50 ms", gate.failure());
        try (MoverClient m = new MoverClient(new MoverEndpoint("m1", "127.0.0.1", 1, List.of("drive0")), "s",
                SiteIdentity.of("gridka"), Runnable::run)) {
            // copy() catches the gate's exception like any other: the gate's own record tells them apart
            TapeFault stalled = RemoteTransfers.notSent("append on drive drive0", m, gate.failure(), stall);
            assertEquals(FaultKind.DRIVE, stalled.kind());
            assertTrue(stalled.getMessage().contains("sending to mover m1 failed: the other side took nothing"),
                    stalled.getMessage());
            TapeFault source = RemoteTransfers.notSent("append on drive drive0", m, null,
                    new IOException("pool file unreadable"));
            assertEquals(FaultKind.SOURCE, source.kind());
            assertNull(RemoteTransfers.notSent("append on drive drive0", m, null, null));
        }
    }
}
