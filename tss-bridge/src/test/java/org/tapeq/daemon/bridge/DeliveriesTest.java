package org.tapeq.daemon.bridge;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
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

    private static String temporary(String pnfsid) {
        return "." + pnfsid + ".1.tapeq.tmp";
    }
}
