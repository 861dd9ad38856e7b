package org.tapeq.scheduler.format;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.zip.Adler32;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class FormatChecksumsTest {

    @Test
    void format_values_areEightLowerCaseHexDigits() {
        assertEquals("adler32:00000001", Checksums.format(1));
        assertEquals("adler32:0a1b2c3d", Checksums.format(0x0a1b2c3dL));
        assertEquals("adler32:ffffffff", Checksums.format(0xffffffffL));
    }

    @Test
    void format_outOfRange_isRejected() {
        assertThrows(IllegalArgumentException.class, () -> Checksums.format(-1));
        assertThrows(IllegalArgumentException.class, () -> Checksums.format(0x1_0000_0000L));
    }

    @Test
    void parse_anyCaseAndShortForms_giveTheValue() {
        assertEquals(0x0a1b2c3dL, Checksums.parse("adler32:0a1b2c3d"));
        assertEquals(0x0a1b2c3dL, Checksums.parse("ADLER32:0A1B2C3D"));
        assertEquals(0xa1b2c3dL, Checksums.parse("adler32:a1b2c3d"));
        assertEquals("adler32:0a1b2c3d", Checksums.normalize("Adler32:A1B2C3D"));
        assertEquals("md5:ABC", Checksums.normalize("md5:ABC"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"adler32:", "adler32:123456789", "adler32:xyz", "adler32:-1", "md5:00", "0a1b2c3d"})
    void parse_malformed_isRejected(String checksum) {
        assertThrows(IllegalArgumentException.class, () -> Checksums.parse(checksum));
    }

    @Test
    void isAdler32_types_areRecognisedByPrefix() {
        assertTrue(Checksums.isAdler32("adler32:1"));
        assertFalse(Checksums.isAdler32("md5:1"));
        assertFalse(Checksums.isAdler32(null));
    }

    @Test
    void adler32Stream_writes_passesBytesThroughAndMatchesJavaUtilZip() throws IOException {
        byte[] data = "The quick brown fox jumps over the lazy dog".getBytes(StandardCharsets.US_ASCII);
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        Checksums.Adler32OutputStream out = Checksums.adler32(sink);

        out.write(data, 0, 10);
        out.write(data[10]);
        out.write(data, 11, data.length - 11);

        Adler32 expected = new Adler32();
        expected.update(data);
        assertEquals(expected.getValue(), out.value());
        assertEquals("adler32:5bdc0fda", out.checksum()); // the well-known value for this sentence
        assertEquals(data.length, out.count());
        assertArrayEquals(data, sink.toByteArray());
    }

    @Test
    void adler32Stream_nothingWritten_isOne() {
        assertEquals("adler32:00000001", Checksums.adler32(new ByteArrayOutputStream()).checksum());
    }
}
