package org.tapeq.scheduler.engine.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

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
}
