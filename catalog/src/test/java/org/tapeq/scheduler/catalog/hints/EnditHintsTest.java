package org.tapeq.scheduler.catalog.hints;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.tapeq.scheduler.catalog.jdbc.Records.aggregate;
import static org.tapeq.scheduler.catalog.jdbc.Records.cartridge;
import static org.tapeq.scheduler.catalog.jdbc.Records.hint;
import static org.tapeq.scheduler.catalog.jdbc.Records.members;
import static org.tapeq.scheduler.catalog.jdbc.Records.pnfsid;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.tapeq.scheduler.catalog.jdbc.JdbcCatalog;
import org.tapeq.scheduler.model.FileRecord;

class EnditHintsTest {
    @TempDir
    Path tmp;

    private JdbcCatalog catalog;

    @BeforeEach
    void open() {
        catalog = JdbcCatalog.open("jdbc:sqlite::memory:");
    }

    @AfterEach
    void close() {
        catalog.close();
    }

    private Path write(String json) throws IOException {
        Path file = tmp.resolve("tapehints.json");
        Files.writeString(file, json, StandardCharsets.UTF_8);
        return file;
    }

    private EnditHints.Result importJson(String json) throws IOException {
        return EnditHints.importFile(write(json), catalog);
    }

    @Test
    void importFile_tsmtapehintsStyleStrings_importsEveryEntryInRestoreOrder() throws IOException {
        // As tsmtapehints.pl writes it: every value a string, order a TSM restore order.
        EnditHints.Result result = importJson("{"
                + "\"" + pnfsid(1) + "\":{\"volid\":\"724216\",\"order\":\"00000000-00000002-00000000-00CEF5A1\","
                + "\"size\":\"72191\"},"
                + "\"" + pnfsid(2) + "\":{\"volid\":\"724216\",\"order\":\"00000000-00000001-00000000-FFFFFFFF\","
                + "\"size\":\"10\"},"
                + "\"" + pnfsid(3) + "\":{\"volid\":\"724216\",\"order\":\"00000000-00000002-00000000-00000001\","
                + "\"size\":\"0\"}}\n");

        assertEquals(3, result.imported());
        assertEquals(0, result.rejectedCount());
        assertEquals(Optional.of(hint(pnfsid(1), "724216", (2L << 32) | 0xCEF5A1L, 72191)),
                catalog.file(pnfsid(1)));
        assertEquals(List.of(pnfsid(2), pnfsid(3), pnfsid(1)),
                catalog.files("724216").stream().map(FileRecord::pnfsid).toList());
    }

    @Test
    void importFile_volumeContentStyleNumbers_importsEveryEntry() throws IOException {
        // As tsm_getvolumecontent.pl writes it: order a counter, size converted from KB/MB/GB (maybe fractional).
        EnditHints.Result result = importJson("{"
                + "\"" + pnfsid(1) + "\":{\"volid\":\"VOL001L8\",\"order\":0,\"size\":1299227607.04},"
                + "\"" + pnfsid(2) + "\":{\"volid\":724216,\"order\":1,\"size\":2048,\"timestamp\":\"x\"}}");

        assertEquals(2, result.imported());
        assertEquals(Optional.of(hint(pnfsid(1), "VOL001L8", 0, 1_299_227_607L)), catalog.file(pnfsid(1)));
        assertEquals(Optional.of(hint(pnfsid(2), "724216", 1, 2048)), catalog.file(pnfsid(2)));
    }

    @Test
    void importFile_sizeMissing_storedWithUnknownSize() throws IOException {
        EnditHints.Result result = importJson("{\"" + pnfsid(1) + "\":{\"volid\":\"724216\",\"order\":\"5\"}}");

        assertEquals(1, result.imported());
        assertEquals(Optional.of(hint(pnfsid(1), "724216", 5, -1)), catalog.file(pnfsid(1)));
    }

    @ParameterizedTest(name = "[{index}] {1}")
    @CsvSource(delimiter = '|', value = {
        "\"xyz\":{\"volid\":\"V1\",\"order\":1,\"size\":1}|not a pnfsid",
        "\"../etc\":{\"volid\":\"V1\",\"order\":1,\"size\":1}|not a pnfsid",
        "\"00AA\":{\"order\":1,\"size\":1}|no volid",
        "\"00AA\":{\"volid\":\"  \",\"order\":1,\"size\":1}|empty volid",
        "\"00AA\":{\"volid\":[\"V1\"],\"order\":1,\"size\":1}|volid is an array",
        "\"00AA\":{\"volid\":1.5,\"order\":1,\"size\":1}|volid is a number",
        "\"00AA\":{\"volid\":\"V1\",\"size\":1}|no order",
        "\"00AA\":{\"volid\":\"V1\",\"order\":-1,\"size\":1}|order -1 is negative",
        "\"00AA\":{\"volid\":\"V1\",\"order\":\"-1\",\"size\":1}|not a non-negative integer",
        "\"00AA\":{\"volid\":\"V1\",\"order\":\"first\",\"size\":1}|not a non-negative integer",
        "\"00AA\":{\"volid\":\"V1\",\"order\":2.5,\"size\":1}|order 2.5 is not an integer",
        "\"00AA\":{\"volid\":\"V1\",\"order\":99999999999999999999,\"size\":1}|too large",
        "\"00AA\":{\"volid\":\"V1\",\"order\":\"00000001-00000002-00000000-00CEF5A1\",\"size\":1}|outside the form",
        "\"00AA\":{\"volid\":\"V1\",\"order\":true,\"size\":1}|order is a boolean",
        "\"00AA\":{\"volid\":\"V1\",\"order\":1,\"size\":-5}|size -5 is negative",
        "\"00AA\":{\"volid\":\"V1\",\"order\":1,\"size\":\"12 KB\"}|size '12 KB' is not a number",
        "\"00AA\":[\"V1\",1,1]|value is an array",
        "\"00AA\":\"V1\"|value is a string",
    })
    void importFile_malformedEntry_skippedWithFileNamePnfsidAndReason(String entry, String reason)
            throws IOException {
        String good = "\"" + pnfsid(1) + "\":{\"volid\":\"V1\",\"order\":1,\"size\":1}";
        Path file = write("{" + good + "," + entry + "," + good.replace(pnfsid(1), pnfsid(2)) + "}");

        EnditHints.Result result = EnditHints.importFile(file, catalog);

        assertEquals(2, result.imported(), "the entries around the bad one are imported");
        assertEquals(1, result.rejectedCount());
        EnditHints.Rejected rejected = result.rejected().get(0);
        String pnfsid = entry.substring(1, entry.indexOf('"', 1));
        assertEquals(pnfsid, rejected.pnfsid());
        assertEquals(file.toString(), rejected.file());
        assertTrue(rejected.reason().contains(reason), rejected.reason());
        assertTrue(rejected.toString().startsWith(file + ": " + pnfsid + ": "), rejected.toString());
    }

    @Test
    void importFile_fileWrittenByTapeq_keepsTapeqLocationAndCountsItAlreadyKnown() throws IOException {
        catalog.putCartridge(cartridge("A00001", "atlas"));
        List<FileRecord> written = members("A00001", 1, 1, 1, 100, "ds");
        catalog.commitAggregate(aggregate("A00001", 1, written, "atlas", "ds", 10), written);

        EnditHints.Result result = importJson("{"
                + "\"" + pnfsid(1) + "\":{\"volid\":\"724216\",\"order\":1,\"size\":100},"
                + "\"" + pnfsid(2) + "\":{\"volid\":\"724216\",\"order\":2,\"size\":100}}");

        assertEquals(1, result.imported());
        assertEquals(1, result.alreadyKnown());
        assertEquals(Optional.of(written.get(0)), catalog.file(pnfsid(1)));
    }

    @Test
    void importFile_sameFileTwice_secondImportFindsAllAlreadyKnown() throws IOException {
        Path file = write("{\"" + pnfsid(1) + "\":{\"volid\":\"724216\",\"order\":1,\"size\":100}}");
        EnditHints.importFile(file, catalog);

        EnditHints.Result again = EnditHints.importFile(file, catalog);

        assertEquals(0, again.imported());
        assertEquals(1, again.alreadyKnown());
    }

    @Test
    void importFile_notAJsonObject_failsNamingTheFile() throws IOException {
        Path file = write("[1, 2, 3]");
        IOException e = assertThrows(IOException.class, () -> EnditHints.importFile(file, catalog));
        assertTrue(e.getMessage().startsWith(file.toString()), e.getMessage());
    }

    @Test
    void importFile_cutShort_failsNamingTheFileAndPosition() throws IOException {
        Path file = write("{\"" + pnfsid(1) + "\":{\"volid\":\"724216\",\"order\":1,\"si");
        IOException e = assertThrows(IOException.class, () -> EnditHints.importFile(file, catalog));
        assertTrue(e.getMessage().startsWith(file.toString()) && e.getMessage().contains("line 1"),
                e.getMessage());
    }

    @Test
    void importFile_manyMalformedEntries_countsAllReportsTheFirstOnes() throws IOException {
        StringBuilder json = new StringBuilder("{");
        int bad = EnditHints.MAX_REPORTED + 500;
        for (int i = 0; i < bad; i++) {
            json.append(i == 0 ? "" : ",").append("\"").append(pnfsid(i)).append("\":{\"volid\":\"\",\"order\":1}");
        }
        EnditHints.Result result = importJson(json.append("}").toString());

        assertEquals(bad, result.rejectedCount());
        assertEquals(EnditHints.MAX_REPORTED, result.rejected().size());
        assertEquals(0, result.imported());
    }

    @Test
    void importFile_severalBatches_storesEveryEntry() throws IOException {
        int entries = EnditHints.BATCH_SIZE * 2 + 123;
        Path file = tmp.resolve("big.json");
        writeHintFile(file, entries);

        long start = System.nanoTime();
        EnditHints.Result result = EnditHints.importFile(file, catalog);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        System.out.printf("[EnditHintsTest] imported %d hints in %d ms (%.0f/s)%n", entries, millis,
                entries * 1000.0 / Math.max(1, millis));

        assertEquals(entries, result.imported());
        assertEquals(0, result.rejectedCount());
        assertEquals(Optional.of(hint(pnfsid(entries - 1), "V" + ((entries - 1) % 50), (entries - 1) / 50, 1000)),
                catalog.file(pnfsid(entries - 1)));
    }

    /** A hint file of {@code entries} entries over 50 volumes, written as a stream. */
    static void writeHintFile(Path file, int entries) throws IOException {
        try (OutputStream out = Files.newOutputStream(file);
             JsonGenerator json = new JsonFactory().createGenerator(out)) {
            json.writeStartObject();
            for (int i = 0; i < entries; i++) {
                json.writeObjectFieldStart(pnfsid(i));
                json.writeStringField("volid", "V" + (i % 50));
                json.writeNumberField("order", i / 50);
                json.writeStringField("size", "1000");
                json.writeEndObject();
            }
            json.writeEndObject();
        }
    }

    @Test
    void order_restoreOrder_keepsNumericOrder() {
        long a = EnditHints.order("00000000-00000001-00000000-FFFFFFFF");
        long b = EnditHints.order("00000000-00000002-00000000-00000000");
        long c = EnditHints.order("00000000-00000002-00000000-00cef5a1");
        assertTrue(a < b && b < c);
        assertEquals(7, EnditHints.order(BigInteger.valueOf(7)));
        assertEquals(7, EnditHints.order("7"));
    }

    @Test
    void size_variousForms_roundedDownOrUnknown() {
        assertEquals(-1, EnditHints.size(null));
        assertEquals(10, EnditHints.size("10"));
        assertEquals(10, EnditHints.size(new java.math.BigDecimal("10.99")));
        assertEquals(0, EnditHints.size(BigInteger.ZERO));
    }
}
