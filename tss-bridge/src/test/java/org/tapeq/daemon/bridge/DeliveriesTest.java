package org.tapeq.daemon.bridge;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.protocol.AtomicFiles;
import org.tapeq.protocol.HeldDirectory;
import org.tapeq.protocol.RequestDirectory;

class DeliveriesTest {

    @TempDir
    Path in;

    @Test
    void batch_withOneTemporaryMissing_deliversTheOthersWithTheirChecksumFilesAndFailsOnlyThatOne() throws Exception {
        BlockingQueue<Deliveries.Delivery> done = new LinkedBlockingQueue<>();
        BridgeThread bridge = new BridgeThread("test");
        try (HeldDirectory held = HeldDirectory.open(in)) {
            Deliveries deliveries = new Deliveries("test", held, bridge, done::add);
            List<String> ids = List.of("00A1", "00A2", "00A3", "00A4");
            for (String id : ids) {
                if (!id.equals("00A3")) { // 00A3's temporary file is missing: its commit must fail alone
                    Files.write(in.resolve(temporary(id)), id.getBytes(StandardCharsets.US_ASCII));
                }
                byte[] checksum = id.equals("00A4") ? null : ("adler32:" + id + "\n").getBytes(StandardCharsets.US_ASCII);
                Deliveries.Delivery d = new Deliveries.Delivery(new Tracked(1, id, null, 0, null), temporary(id),
                        checksum, 4, null);
                bridge.run(() -> deliveries.add(d));
            }
            Map<String, Deliveries.Delivery> results = new HashMap<>();
            for (int i = 0; i < ids.size(); i++) {
                Deliveries.Delivery d = done.poll(30, TimeUnit.SECONDS);
                assertNotNull(d, "only " + results.keySet() + " reported");
                results.put(d.tracked.pnfsid, d);
            }
            deliveries.close();

            assertInstanceOf(NoSuchFileException.class, results.get("00A3").failure);
            assertFalse(Files.exists(in.resolve("00A3")));
            assertFalse(Files.exists(in.resolve(RequestDirectory.checksumFileName("00A3"))));
            for (String id : List.of("00A1", "00A2", "00A4")) {
                assertNull(results.get(id).failure, id);
                assertArrayEquals(id.getBytes(StandardCharsets.US_ASCII), Files.readAllBytes(in.resolve(id)));
            }
            assertEquals("adler32:00A1\n", Files.readString(in.resolve(RequestDirectory.checksumFileName("00A1"))));
            assertTrue(Files.exists(in.resolve(RequestDirectory.checksumFileName("00A2"))));
            assertFalse(Files.exists(in.resolve(RequestDirectory.checksumFileName("00A4"))));
            try (var names = Files.list(in)) {
                assertEquals(List.of(), names.map(p -> p.getFileName().toString())
                        .filter(AtomicFiles::isTemporaryName).toList(), "temporary files left behind");
            }
        } finally {
            bridge.close();
        }
    }

    @Test
    void commit_secondDirectoryForceFails_takesTheDataFilesOutOfInBeforeFailingThem() throws Exception {
        BlockingQueue<Deliveries.Delivery> done = new LinkedBlockingQueue<>();
        BridgeThread bridge = new BridgeThread("test");
        try (HeldDirectory held = HeldDirectory.open(in)) {
            int[] forces = {0};
            Deliveries.Directory failing = new Stub(held) {
                @Override
                public void forceSelf() throws IOException {
                    if (++forces[0] == 2) { // the force after the data files' renames
                        throw new IOException("Input/output error");
                    }
                    super.forceSelf();
                }
            };
            Deliveries deliveries = new Deliveries("test", failing, bridge, done::add);
            Files.write(in.resolve(temporary("00B1")), new byte[] {1, 2, 3, 4});
            Deliveries.Delivery d = new Deliveries.Delivery(new Tracked(1, "00B1", null, 0, null), temporary("00B1"),
                    "adler32:00b1\n".getBytes(StandardCharsets.US_ASCII), 4, null);
            bridge.run(() -> deliveries.add(d));
            Deliveries.Delivery result = done.poll(30, TimeUnit.SECONDS);
            deliveries.close();

            assertNotNull(result, "not reported");
            assertEquals(2, forces[0]);
            assertNotNull(result.failure);
            assertFalse(Files.exists(in.resolve("00B1")), "a failed file stays in in/ under its final name");
        } finally {
            bridge.close();
        }
    }

    @Test
    void commit_renameThrowsUnchecked_failsTheBatchAndALaterFileIsStillDelivered() throws Exception {
        BlockingQueue<Deliveries.Delivery> done = new LinkedBlockingQueue<>();
        BridgeThread bridge = new BridgeThread("test");
        try (HeldDirectory held = HeldDirectory.open(in)) {
            Deliveries.Directory failing = new Stub(held) {
                @Override
                public void rename(String from, String to) throws IOException {
                    if (to.equals("00C1")) {
                        throw new UncheckedIOException(new IOException("Stale file handle"));
                    }
                    super.rename(from, to);
                }
            };
            Deliveries deliveries = new Deliveries("test", failing, bridge, done::add);
            for (String id : List.of("00C1", "00C2")) {
                Files.write(in.resolve(temporary(id)), new byte[] {1, 2, 3, 4});
            }
            Deliveries.Delivery first = new Deliveries.Delivery(new Tracked(1, "00C1", null, 0, null),
                    temporary("00C1"), null, 4, null);
            bridge.run(() -> deliveries.add(first));
            Deliveries.Delivery failed = done.poll(30, TimeUnit.SECONDS);
            assertNotNull(failed, "the failed batch was never reported");
            assertNotNull(failed.failure);

            Deliveries.Delivery second = new Deliveries.Delivery(new Tracked(2, "00C2", null, 0, null),
                    temporary("00C2"), null, 4, null);
            bridge.run(() -> deliveries.add(second));
            Deliveries.Delivery later = done.poll(30, TimeUnit.SECONDS);
            deliveries.close();

            assertNotNull(later, "a file staged after the failed batch waits forever");
            assertNull(later.failure);
            assertTrue(Files.exists(in.resolve("00C2")));
        } finally {
            bridge.close();
        }
    }

    @Test
    void commit_stoppedWhileABatchIsCommitted_failsItsFilesInsteadOfHanging() throws Exception {
        BlockingQueue<Deliveries.Delivery> done = new LinkedBlockingQueue<>();
        BridgeThread bridge = new BridgeThread("test");
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (HeldDirectory held = HeldDirectory.open(in)) {
            Deliveries.Directory slow = new Stub(held) {
                @Override
                public String writeTemporary(String name, byte[] data) throws IOException {
                    entered.countDown();
                    while (true) { // a write that outlasts the stop: the interrupt of close() is not heeded
                        try {
                            release.await();
                            break;
                        } catch (InterruptedException e) {
                            // keep waiting
                        }
                    }
                    return super.writeTemporary(name, data);
                }
            };
            Deliveries deliveries = new Deliveries("test", slow, bridge, done::add);
            Files.write(in.resolve(temporary("00D1")), new byte[] {1, 2, 3, 4});
            Deliveries.Delivery d = new Deliveries.Delivery(new Tracked(1, "00D1", null, 0, null), temporary("00D1"),
                    "adler32:00d1\n".getBytes(StandardCharsets.US_ASCII), 4, null);
            bridge.run(() -> deliveries.add(d));
            assertTrue(entered.await(30, TimeUnit.SECONDS));
            deliveries.close(); // the sync threads are gone when the commit goes on
            release.countDown();

            Deliveries.Delivery result = done.poll(30, TimeUnit.SECONDS);
            assertNotNull(result, "the batch never ended");
            assertNotNull(result.failure);
            assertFalse(Files.exists(in.resolve("00D1")));
        } finally {
            release.countDown();
            bridge.close();
        }
    }

    /** Passes everything to the real directory; tests override what should fail. */
    private static class Stub implements Deliveries.Directory {
        private final Deliveries.Directory real;

        Stub(HeldDirectory held) {
            this.real = Deliveries.Directory.of(held);
        }

        @Override
        public String writeTemporary(String name, byte[] data) throws IOException {
            return real.writeTemporary(name, data);
        }

        @Override
        public void forceFile(String name) throws IOException {
            real.forceFile(name);
        }

        @Override
        public void rename(String from, String to) throws IOException {
            real.rename(from, to);
        }

        @Override
        public void delete(String name) throws IOException {
            real.delete(name);
        }

        @Override
        public void forceSelf() throws IOException {
            real.forceSelf();
        }

        @Override
        public Object path() {
            return real.path();
        }
    }

    private static String temporary(String pnfsid) {
        return "." + pnfsid + ".1.tapeq.tmp";
    }
}
