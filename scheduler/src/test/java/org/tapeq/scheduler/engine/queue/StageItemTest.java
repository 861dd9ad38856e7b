package org.tapeq.scheduler.engine.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.file.Path;

import org.tapeq.scheduler.model.StageRequest;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class StageItemTest {

    @ParameterizedTest
    @ValueSource(strings = {"adler32:0a1b2c3d", "adler32:00000000", "adler32:ffffffff", "adler32:0000000f",
            "adler32:0A1B2C3D", "adler32:a1b2c3d", "adler32:0a1b2c3d0", "md5:d41d8cd98f00b204e9800998ecf8427e",
            "adler32:0a1b2c3g", "", "adler32:"})
    void checksum_compactOrNot_isGivenBackAsTheCatalogHadIt(String checksum) {
        StageItem item = new StageItem(null, 0, 1, 2, 3, 4, checksum);
        assertEquals(checksum, item.checksum());
    }

    @org.junit.jupiter.api.Test
    void checksum_none_isNull() {
        assertNull(new StageItem(null, 0, 1, 2, 3, 4, null).checksum());
    }

    @org.junit.jupiter.api.Test
    void anItem_isTheRequestItQueues_withEveryFieldOfIt_andEqualOnlyToItself() {
        StageRequest r = new StageRequest(7, "0000AB", -1, "atlas:raw", null, "atlas", "Express", 3, 1234,
                Path.of("/pool/in/x"));
        StageItem item = new StageItem(r, 10, 1, 2, 3, 4096, null);
        assertSame(item, item.request());
        assertEquals(r, item, "the request's fields, compared from the request's side");
        assertEquals("0000AB", item.pnfsid());
        assertEquals("atlas:raw", item.storageClass());
        assertEquals("atlas", item.group());
        assertEquals("Express", item.activity());
        assertEquals(3, item.priority());
        assertEquals(1234, item.deadline());
        assertEquals(Path.of("/pool/in/x"), item.target());
        assertEquals(4096, item.size(), "the catalog's size");
        assertNotEquals(new StageItem(r, 10, 1, 2, 3, 4096, null), item, "two entries are two reads");
        assertEquals(Long.MIN_VALUE, item.notBefore());
        assertNull(item.excludedDrive());
        item.retryAfter(99, "drive1");
        assertEquals(99, item.notBefore());
        assertEquals("drive1", item.excludedDrive());
    }
}
