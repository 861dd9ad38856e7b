package org.tapeq.scheduler.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import java.util.Random;

import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.junit.jupiter.api.Test;
import org.tapeq.fuzz.Fuzz;
import org.tapeq.fuzz.Gen;
import org.tapeq.fuzz.Mutations;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.TapeFault;

/**
 * Fuzzes what tapeq reads back from tape (docs/testing.md, "Fuzzing"): the label in tape file 0, the manifest at
 * the start of every aggregate (both tar archives holding JSON) and the checksums recorded in them. Mutated
 * archives must give a valid value or the documented refusal (a {@link TapeFault} of kind LABEL, a
 * {@link TapeFormatException}, an {@link IllegalArgumentException}) with a message; what is written reads back equal.
 */
class FormatFuzzTest {
    /** What the daemon reads at most for a manifest (DriveRunner.MANIFEST_BYTES). */
    private static final long MANIFEST_BYTES = 64L * 1024 * 1024;
    private static final int MAX = 128 * 1024;
    private static final int ROUND_TRIPS = 1000;
    private static final long CREATED = 1_738_324_800_000L;
    private static final List<String> TAR_AND_JSON = List.of("TAPEQ-LABEL.json", "TAPEQ-MANIFEST.json", "ustar",
            "ustar\u000000", "0000644\u0000", "00000000000\u0000", "\"format\"", "\"tapeq-tape-1\"",
            "\"tapeq-aggregate-1\"", "\"barcode\"", "\"family\"", "\"created\"", "\"block_size\"", "\"length\"",
            "\"members\"", "\"offset\"", "\"size\"", "\"checksum\"", "\"2025-01-31T12:00:00Z\"",
            "\"+999999999-12-31T23:59:59Z\"", "null", "[]", "{}", "\"\"", "path=", "size=", "mtime=", "30 path=x\n",
            "\u0080\u0000\u0000\u0000\u0000\u0000\u0000\u0001");

    // ---- the label

    @Test
    void label_mutated_parsesOrIsALabelFault() {
        Fuzz.mutants("tape label", LABELS, input -> {
            TapeLabel label;
            try {
                label = TapeLabel.parse(input.bytes());
            } catch (TapeFault e) {
                assertEquals(FaultKind.LABEL, e.kind(), e::getMessage);
                assertFalse(e.getMessage() == null || e.getMessage().isBlank(), "no reason given");
                return;
            }
            assertFalse(label.barcode().isBlank());
            assertTrue(label.blockSize() > 0);
            assertEquals(label, TapeLabel.parse(archive(label)), "written back differently");
        });
    }

    @Test
    void label_written_parsesBackEqual() {
        Fuzz.run("tape label written", ROUND_TRIPS,
                r -> new TapeLabel("B" + Gen.text(r, 0, 30), Gen.text(r, 0, 30),
                        Gen.between(r, -62_135_596_800_000L, 253_402_300_799_999L), Gen.between(r, 1, Integer.MAX_VALUE)),
                label -> assertEquals(label, TapeLabel.parseFor(archive(label), label.barcode())));
    }

    private static final Mutations LABELS = Mutations.of(List.of(archive(new TapeLabel("A00042L9", "atlas-raw", CREATED, 256 * 1024)),
                archive(new TapeLabel("B\u00e9\u00e9" + "9".repeat(120), "f\u00fcr \"alle\"\n", 0, 1)),
                tar("TAPEQ-LABEL.json", "{\"format\":\"tapeq-tape-1\",\"barcode\":\"X\",\"family\":\"f\","
                        + "\"created\":\"2025-01-31T12:00:00Z\",\"block_size\":262144,\"extra\":[1,{}]}")),
                TAR_AND_JSON, MAX);

    // ---- the manifest

    @Test
    void manifest_mutated_readsOrIsRefusedAsNotTapeqFormat() {
        Fuzz.mutants("aggregate manifest", MANIFESTS, input -> {
            Manifest m;
            try {
                m = ManifestReader.read(new ByteArrayInputStream(input.bytes()), MANIFEST_BYTES);
            } catch (TapeFormatException e) {
                assertFalse(e.getMessage() == null || e.getMessage().isBlank(), "no reason given");
                return;
            }
            long end = 0;
            for (Manifest.Entry e : m.members()) {
                assertTrue(e.offset() >= end && e.size() <= m.length() - e.offset(), () -> "members overlap: " + m);
                end = e.offset() + e.size();
            }
            assertTrue(m.blockSize() > 0);
            assertEquals(m, ManifestReader.read(new ByteArrayInputStream(head(m)), MANIFEST_BYTES),
                    "written back differently");
        });
    }

    @Test
    void manifest_written_readsBackEqual() {
        Fuzz.run("aggregate manifest written", ROUND_TRIPS, FormatFuzzTest::manifest, manifest -> assertEquals(manifest,
                ManifestReader.read(new ByteArrayInputStream(head(manifest)), MANIFEST_BYTES)));
    }

    private static final Mutations MANIFESTS = Mutations.of(List.of(head(plan(0)), head(plan(1)), head(plan(3)),
            head(new Manifest(Manifest.FORMAT, "A\u00e9", "f", null, CREATED, 1, 10, List.of(
                    new Manifest.Entry("00A1", "00A1", 10, 0, null, null, null, null))))),
            TAR_AND_JSON, MAX);

    /** A manifest as the aggregate planner makes it, of members with any names, sizes and texts. */
    private static Manifest manifest(Random r) {
        List<AggregateMember> members = new ArrayList<>();
        for (int i = r.nextInt(6); i > 0; i--) {
            members.add(new AggregateMember(Gen.of(r, "0123456789ABCDEF", 1, 36), Gen.between(r, 0, 1L << 40),
                    Gen.orNull(r, "md5:" + Gen.text(r, 0, 30), 0.3), Gen.orNull(r, Gen.text(r, 0, 30), 0.3),
                    Gen.orNull(r, Gen.text(r, 0, 30), 0.3), Gen.orNull(r, Gen.text(r, 0, 30), 0.3), null));
        }
        return AggregatePlan.prepare(Gen.text(r, 0, 30), Gen.text(r, 0, 30), Gen.orNull(r, Gen.text(r, 0, 30), 0.3),
                Gen.between(r, 0, 253_402_300_799_999L), members, Gen.between(r, 1, 1 << 20)).plan().manifest();
    }

    // ---- recorded checksums

    @Test
    void adler32_mutated_parsesToA32BitValueOrIsRefused() {
        Fuzz.mutants("adler32 checksum", CHECKSUMS, input -> {
            String text = input.text();
            long value;
            try {
                value = Checksums.parse(text);
            } catch (IllegalArgumentException e) {
                assertTrue(e.getMessage().contains("adler32"), e::getMessage);
                return;
            }
            assertTrue(value >= 0 && value <= 0xffffffffL, () -> "not 32 bits: " + value);
            assertTrue(text.substring(8).matches("[0-9a-fA-F]{1,8}"),
                    () -> "accepted digits that are not hex: " + text);
            assertEquals(value, Checksums.parse(Checksums.format(value)));
        });
    }

    /** Found by the fuzzer: digits of other scripts (here fullwidth) were taken as hexadecimal digits. */
    @Test
    void adler32_fullwidthDigits_refused() {
        assertThrows(IllegalArgumentException.class, () -> Checksums.parse("adler32:\uff11\uff12"));
    }

    private static final Mutations CHECKSUMS = Mutations.ofText(List.of("adler32:0a1b2c3d", "ADLER32:1",
            "adler32:ffffffff"), List.of("adler32:", "\u0661", "\uff10", "f", "-", "+"), 64);

    // ---- helpers

    private static byte[] archive(TapeLabel label) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try {
            label.source().writeTo(bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private static AggregatePlan plan(int members) {
        List<AggregateMember> list = new ArrayList<>();
        for (int i = 0; i < members; i++) {
            list.add(new AggregateMember(Integer.toHexString(0x1000 + i), 1000L * i, "adler32:0000000" + i,
                    "exp:raw", "/pnfs/f\u00e9e/" + i, "ds", null));
        }
        return AggregatePlan.prepare("A00009", "exp", "ds", CREATED, list, 32 * 1024).plan();
    }

    private static byte[] head(AggregatePlan plan) {
        return tar(Manifest.MEMBER_NAME, plan.layout().manifestJson);
    }

    private static byte[] head(Manifest manifest) {
        return tar(Manifest.MEMBER_NAME, manifest.toJson());
    }

    private static byte[] tar(String name, String content) {
        return tar(name, content.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] tar(String name, byte[] content) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try {
            TarArchiveOutputStream tar = TarFormat.newWriter(bytes);
            tar.putArchiveEntry(TarFormat.fileEntry(name, content.length, CREATED));
            tar.write(content);
            tar.closeArchiveEntry();
            tar.finish();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

}
