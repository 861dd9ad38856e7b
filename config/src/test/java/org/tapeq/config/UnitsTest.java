package org.tapeq.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class UnitsTest {

    @ParameterizedTest
    @CsvSource({
            "123, 123", "0, 0", "1B, 1", "10GB, 10000000000", "10 GB, 10000000000", "1kB, 1000", "1KB, 1000",
            "1MB, 1000000", "650GB, 650000000000", "1.5TB, 1500000000000", "2PB, 2000000000000000",
            "256KiB, 262144", "1MiB, 1048576", "100GiB, 107374182400", "1TiB, 1099511627776", "1gib, 1073741824",
            "' 4 KiB ', 4096"})
    void parseSize_validSyntax_bytes(String text, long bytes) {
        assertEquals(bytes, Units.parseSize(text));
    }

    @ParameterizedTest
    @CsvSource({"500ms, 500", "120s, 120000", "10m, 600000", "2h, 7200000", "1d, 86400000", "30, 30000",
            "0, 0", "0.5s, 500", "1.5h, 5400000", "10 m, 600000"})
    void parseDuration_validSyntax_millis(String text, long millis) {
        assertEquals(millis, Units.parseDuration(text));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "abc | \"abc\" is not a size (examples: 123, 10GB, 256KiB, 1.5TB)",
            "10XB | \"10XB\" is not a size",
            "GB | \"GB\" is not a size",
            "-1GB | \"-1GB\" is negative",
            "1.5 | \"1.5\" is not a whole number of bytes",
            "99999999PB | \"99999999PB\" is too large"})
    void parseSize_invalid_explains(String text, String message) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Units.parseSize(text));
        assertTrue(e.getMessage().startsWith(message), e.getMessage());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "abc | \"abc\" is not a duration (examples: 500ms, 120s, 10m, 2h)",
            "10M | \"10M\" is not a duration",
            "5 min | \"5 min\" is not a duration",
            "-5s | \"-5s\" is negative",
            "1.5ms | \"1.5ms\" is not a whole number of milliseconds"})
    void parseDuration_invalid_explains(String text, String message) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Units.parseDuration(text));
        assertTrue(e.getMessage().startsWith(message), e.getMessage());
    }

    @ParameterizedTest
    @CsvSource({"650000000000, 650GB", "262144, 256KiB", "107374182400, 100GiB", "123, 123", "0, 0",
            "1000, 1kB", "1024000, 1000KiB", "10000000000, 10GB"})
    void formatSize_exactValue_smallestNumberThatParsesBack(long bytes, String text) {
        assertEquals(text, Units.formatSize(bytes));
        assertEquals(bytes, Units.parseSize(text));
    }

    @ParameterizedTest
    @CsvSource({"120000, 2m", "3600000, 1h", "90000, 90s", "500, 500ms", "1500, 1500ms", "86400000, 1d",
            "0, 0s"})
    void formatDuration_exactValue_largestUnitThatParsesBack(long millis, String text) {
        assertEquals(text, Units.formatDuration(millis));
        assertEquals(millis, Units.parseDuration(text));
    }
}
