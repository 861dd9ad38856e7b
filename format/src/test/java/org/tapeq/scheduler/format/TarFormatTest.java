package org.tapeq.scheduler.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.junit.jupiter.api.Test;

/** The predicted header length is what the writer emits, on both sides of every ustar limit. */
class TarFormatTest {

    private static final long NOW = 1_795_000_000_000L;

    private static void assertPredicted(TarArchiveEntry e) {
        assertEquals(TarFormat.measuredHeaderLength(e), TarFormat.headerLength(e),
                "header of " + e.getName().length() + "-char name, size " + e.getSize() + ", mtime "
                        + e.getLastModifiedTime());
    }

    @Test
    void headerLength_acrossNameLengthsSizesAndTimes_isWhatTheWriterEmits() {
        List<Long> sizes = List.of(0L, 1L, 8_589_934_591L, 8_589_934_592L, 20_000_000_000L);
        List<Long> times = List.of(0L, NOW, 8_589_934_591_000L, 8_589_934_592_000L);
        for (int length = 1; length <= 130; length++) {
            String name = "a".repeat(length);
            for (long size : sizes) {
                for (long mtime : times) {
                    assertPredicted(TarFormat.fileEntry(name, size, mtime));
                }
            }
        }
        assertPredicted(TarFormat.fileEntry("0000ABCDEF0123456789ABCDEF", 100_000_000, NOW));
        assertPredicted(TarFormat.fileEntry("fichier-é", 10, NOW));
        assertPredicted(TarFormat.fileEntry("tab\there", 10, NOW));
    }

    @Test
    void fitsUstar_onlyWithinTheFields() {
        assertTrue(TarFormat.fitsUstar(TarFormat.fileEntry("a".repeat(99), 8_589_934_591L, NOW)));
        assertFalse(TarFormat.fitsUstar(TarFormat.fileEntry("a".repeat(100), 1, NOW)));
        assertFalse(TarFormat.fitsUstar(TarFormat.fileEntry("a", 8_589_934_592L, NOW)));
        assertFalse(TarFormat.fitsUstar(TarFormat.fileEntry("é", 1, NOW)));
        assertEquals(TarFormat.RECORD, TarFormat.headerLength(TarFormat.fileEntry("manifest.json", 1, NOW)));
        assertTrue(TarFormat.headerLength(TarFormat.fileEntry("a", 8_589_934_592L, NOW)) > TarFormat.RECORD);
    }
}
