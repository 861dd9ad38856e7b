package org.tapeq.scheduler.catalog.hints;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.tapeq.scheduler.catalog.jdbc.Records.hint;
import static org.tapeq.scheduler.catalog.jdbc.Records.pnfsid;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.tapeq.fuzz.Fuzz;
import org.tapeq.fuzz.Gen;
import org.tapeq.fuzz.Mutations;
import org.tapeq.protocol.PnfsIds;
import org.tapeq.scheduler.catalog.Catalog;
import org.tapeq.scheduler.model.FileRecord;

/**
 * Fuzzes the import of ENDIT tape hint files (docs/testing.md, "Fuzzing"): a mutated file is imported (every
 * stored hint valid, every bad entry skipped with a reason) or refused with an {@link IOException} naming the
 * file; hint files written in either ENDIT generator's style import exactly their entries.
 */
class EnditHintsFuzzTest {
    private static final String FILE = "tapehints.json";
    private static final int ROUND_TRIPS = 1000;
    private static final JsonFactory JSON = new JsonFactory();

    @Test
    void hintFile_mutated_importsValidHintsOrIsRefusedNamingTheFile() {
        Fuzz.mutants("ENDIT hint file", HINT_FILES, input -> checkHintFile(input.bytes()));
    }

    /**
     * What must hold for any hint file: every hint it stores is valid and every entry it skips has a reason, or it
     * is refused naming the file. Also the body of the coverage-guided {@code EnditHintsJazzerTest}.
     */
    static void checkHintFile(byte[] bytes) {
        List<FileRecord> stored = new ArrayList<>();
        EnditHints.Result result;
        try {
            result = EnditHints.importFrom(new ByteArrayInputStream(bytes), FILE, recording(stored));
        } catch (IOException e) {
            assertTrue(e.getMessage().startsWith(FILE + ": "), e::getMessage);
            return;
        }
        assertEquals(stored.size(), result.imported());
        assertEquals(0, result.alreadyKnown());
        assertEquals(Math.min(result.rejectedCount(), EnditHints.MAX_REPORTED), result.rejected().size());
        for (EnditHints.Rejected r : result.rejected()) {
            assertFalse(r.reason().isBlank(), () -> "no reason for " + r.pnfsid());
        }
        for (FileRecord h : stored) {
            assertTrue(PnfsIds.isPnfsId(h.pnfsid()), h::toString);
            assertFalse(h.cartridge().isBlank(), h::toString);
            assertTrue(h.hintOrder() >= 0 && h.size() >= -1 && h.tapeFile() == -1, h::toString);
        }
    }

    @Test
    void hintFile_written_importsEveryEntry() {
        Fuzz.run("ENDIT hint file written", ROUND_TRIPS, EnditHintsFuzzTest::hints, hints -> {
            List<FileRecord> stored = new ArrayList<>();
            EnditHints.Result result = EnditHints.importFrom(new ByteArrayInputStream(write(hints, new Random(
                    hints.size()))), FILE, recording(stored));
            assertEquals(0, result.rejectedCount(), result.rejected().toString());
            assertEquals(new ArrayList<>(hints.values()), stored);
        });
    }

    /** Found by the fuzzer: a JSON limit broken (here a number of 2000 digits) failed with a NullPointerException. */
    @Test
    void hintFile_numberBeyondJsonLimits_refusedNamingTheFile() {
        IOException e = assertThrows(IOException.class, () -> EnditHints.importFrom(new ByteArrayInputStream(
                "9".repeat(2000).getBytes(StandardCharsets.US_ASCII)), FILE, recording(new ArrayList<>())));
        assertTrue(e.getMessage().startsWith(FILE + ": malformed JSON: "), e.getMessage());
    }

    /**
     * Found by the fuzzer: an exponent beyond BigDecimal's failed the whole import with a NumberFormatException
     * instead of skipping the entry.
     */
    @Test
    void hintFile_exponentBeyondBigDecimal_skippedWithTheReason() throws IOException {
        EnditHints.Result result = EnditHints.importFrom(new ByteArrayInputStream(
                "{\"01\":{\"volid\":\"V\",\"order\":1,\"size\":71E-99999999924217}}".getBytes(StandardCharsets.US_ASCII)),
                FILE, recording(new ArrayList<>()));
        assertEquals(List.of("01: size '71E-99999999924217' is not a number"),
                result.rejected().stream().map(r -> r.pnfsid() + ": " + r.reason()).toList());
    }

    /**
     * Rounding a number with an exponent of a billion asked BigInteger for a power of ten of a billion digits: the
     * whole import failed with an ArithmeticException (overflow), and smaller exponents (1e99999999) cost a power
     * of ten of a hundred million digits. Seen while fixing the one above; the fuzzer's dictionary reaches it.
     * Too large is now one skipped entry, too small rounds down to 0 at once.
     */
    @Test
    void hintFile_exponentOfABillion_skippedOrRoundedAtOnce() throws IOException {
        List<FileRecord> stored = new ArrayList<>();
        EnditHints.Result result = EnditHints.importFrom(new ByteArrayInputStream(("{"
                + "\"02\":{\"volid\":\"V\",\"order\":1,\"size\":1e999999999},"
                + "\"03\":{\"volid\":\"V\",\"order\":1e999999999},"
                + "\"04\":{\"volid\":\"V\",\"order\":1e-999999999},"
                + "\"05\":{\"volid\":\"V\",\"order\":1,\"size\":\"1e-999999999\"},"
                + "\"06\":{\"volid\":\"V\",\"order\":1e2,\"size\":2.5e1}}").getBytes(StandardCharsets.US_ASCII)),
                FILE, recording(stored));
        assertEquals(List.of("02: size 1E+999999999 is too large", "03: order 1E+999999999 is too large",
                "04: order 1E-999999999 is not an integer"),
                result.rejected().stream().map(r -> r.pnfsid() + ": " + r.reason()).toList());
        assertEquals(List.of(hint("05", "V", 1, 0), hint("06", "V", 100, 25)), stored);
    }

    /** Found by the fuzzer: bytes that look like UTF-32 failed with an IOException that did not name the file. */
    @Test
    void hintFile_invalidUtf32_refusedNamingTheFile() {
        IOException e = assertThrows(IOException.class, () -> EnditHints.importFrom(new ByteArrayInputStream(
                new byte[] {0, 0, 0, '{', 0x72, 0x73, 0, 0}), FILE, recording(new ArrayList<>())));
        assertTrue(e.getMessage().startsWith(FILE + ": "), e.getMessage());
    }

    static final Mutations HINT_FILES = Mutations.ofText(List.of(
            "{\"" + pnfsid(1) + "\":{\"volid\":\"724216\",\"order\":\"00000000-00000002-00000000-00CEF5A1\","
                    + "\"size\":\"72191\"},\"" + pnfsid(2) + "\":{\"volid\":\"724216\","
                    + "\"order\":\"00000000-00000001-00000000-FFFFFFFF\",\"size\":\"10\"}}\n",
            "{\"" + pnfsid(3) + "\":{\"volid\":724217,\"order\":12,\"size\":1.5e3,\"timestamp\":1},\""
                    + pnfsid(4) + "\":{\"volid\":\"A00001\",\"order\":\"7\"}}",
            "{\"" + pnfsid(5) + "\":[1,2],\"zz\":{\"volid\":\"v\",\"order\":1},\"" + pnfsid(6)
                    + "\":{\"volid\":\"\",\"order\":-1,\"size\":true}}",
            "{}"),
            List.of("\"volid\"", "\"order\"", "\"size\"", "\"00000000-00000002-00000000-00CEF5A1\"", "1e999999999",
                    "\"1e999999999\"", "1E+2147483647", "\"-0\"", "0.0000001", "null", "true", "[]", "{}", ":", ",",
                    "\"" + pnfsid(7) + "\":"),
            1 << 20);

    /** Hints for random pnfsids, in the order a file lists them. */
    private static Map<String, FileRecord> hints(Random r) {
        Map<String, FileRecord> hints = new LinkedHashMap<>();
        for (int i = r.nextInt(5); i > 0; i--) {
            String id = Gen.of(r, "0123456789ABCDEFabcdef", 1, PnfsIds.MAX_LENGTH);
            String volid = "V" + Gen.text(r, 0, 20);
            hints.remove(id);
            hints.put(id, hint(id, volid, Gen.between(r, 0, Long.MAX_VALUE), r.nextInt(4) == 0 ? -1
                    : Gen.between(r, 0, Long.MAX_VALUE)));
        }
        return hints;
    }

    /** The hint file, each value in one of the styles ENDIT's generators use (strings, numbers, restore orders). */
    private static byte[] write(Map<String, FileRecord> hints, Random r) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator json = JSON.createGenerator(out)) {
            json.writeStartObject();
            for (FileRecord h : hints.values()) {
                json.writeObjectFieldStart(h.pnfsid());
                json.writeStringField("volid", h.cartridge());
                long order = h.hintOrder();
                if (r.nextBoolean()) {
                    json.writeNumberField("order", order);
                } else if (r.nextBoolean() || order >>> 32 >= (1L << 31)) {
                    json.writeStringField("order", Long.toString(order));
                } else {
                    json.writeStringField("order", String.format("00000000-%08X-00000000-%08X", order >>> 32,
                            order & 0xffffffffL));
                }
                if (h.size() >= 0) {
                    if (r.nextBoolean()) {
                        json.writeNumberField("size", h.size());
                    } else {
                        json.writeStringField("size", h.size() + (r.nextBoolean() ? "" : ".75"));
                    }
                }
                json.writeEndObject();
            }
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /** A catalog that only takes hints, into {@code stored}, and stores every one. */
    private static Catalog recording(List<FileRecord> stored) {
        return (Catalog) Proxy.newProxyInstance(Catalog.class.getClassLoader(), new Class<?>[] {Catalog.class},
                (proxy, method, args) -> {
                    if (!method.getName().equals("putHints")) {
                        throw new UnsupportedOperationException(method.getName());
                    }
                    @SuppressWarnings("unchecked") // the signature of Catalog.putHints
                    List<FileRecord> batch = (List<FileRecord>) args[0];
                    stored.addAll(batch);
                    return batch.size();
                });
    }
}
