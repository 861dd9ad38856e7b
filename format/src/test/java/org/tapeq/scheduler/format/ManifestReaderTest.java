package org.tapeq.scheduler.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.junit.jupiter.api.Test;

class ManifestReaderTest {
    static final int BLOCK = 32 * 1024;
    static final long CREATED = 1_700_000_000_000L;

    /** A manifest as it would be written (size-only members; only the manifest is needed). */
    private static AggregatePlan plan(int members) {
        List<AggregateMember> list = new java.util.ArrayList<>();
        for (int i = 0; i < members; i++) {
            list.add(new AggregateMember(Integer.toHexString(0x1000 + i), 1000L * i, "adler32:0000000" + (i % 10),
                    "exp:raw", "/pnfs/f\u00e9e/" + i, "ds", null));
        }
        return AggregatePlan.prepare("A00009", "exp", "ds", CREATED, list, BLOCK).plan();
    }

    /** Only the manifest member of the tape file: what reading its first blocks gives. */
    private static byte[] head(AggregatePlan plan) throws IOException {
        return tar(Manifest.MEMBER_NAME, plan.layout().manifestJson);
    }

    private static byte[] tar(String name, byte[] content) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        TarArchiveOutputStream tar = TarFormat.newWriter(bytes);
        tar.putArchiveEntry(TarFormat.fileEntry(name, content.length, CREATED));
        tar.write(content);
        tar.closeArchiveEntry();
        tar.finish();
        return bytes.toByteArray();
    }

    private static String failure(byte[] tapeFile, long maxBytes) {
        return assertThrows(TapeFormatException.class,
                () -> ManifestReader.read(new ByteArrayInputStream(tapeFile), maxBytes)).getMessage();
    }

    @Test
    void read_firstBlocksOnly_returnsTheManifestAndLeavesTheStreamOpen() throws IOException {
        AggregatePlan plan = plan(50);
        boolean[] closed = {false};
        FilterInputStream in = new FilterInputStream(new ByteArrayInputStream(head(plan))) {
            @Override
            public void close() {
                closed[0] = true;
            }
        };

        Manifest read = ManifestReader.read(in, BLOCK);

        assertEquals(plan.manifest(), read);
        assertEquals("/pnfs/f\u00e9e/7", read.members().get(7).path());
        assertTrue(!closed[0]);
    }

    @Test
    void read_limitSmallerThanManifest_failsSayingSo() throws IOException {
        AggregatePlan plan = plan(200);
        String message = failure(head(plan), 4096);
        assertTrue(message.contains("more than the 4096 bytes read"), message);
    }

    @Test
    void read_streamEndsInsideManifest_failsAsTruncated() throws IOException {
        AggregatePlan plan = plan(50);
        byte[] cut = Arrays.copyOf(head(plan), 2048);
        String message = failure(cut, BLOCK);
        assertTrue(message.contains("truncated"), message);
    }

    @Test
    void read_streamFails_propagatesTheReadErrorNotAFormatError() throws IOException {
        IOException tapeError = new IOException("medium error");
        FilterInputStream failing = new FilterInputStream(new ByteArrayInputStream(head(plan(50)))) {
            private int reads;

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                if (++reads > 2) {
                    throw tapeError;
                }
                return super.read(b, off, Math.min(len, 512));
            }
        };

        IOException e = assertThrows(IOException.class, () -> ManifestReader.read(failing, BLOCK));

        assertTrue(e == tapeError, e.toString());
    }

    @Test
    void read_notATar_failsSayingSo() {
        byte[] text = "this is a text file, not a tar archive\n".repeat(40).getBytes(StandardCharsets.US_ASCII);
        String message = failure(text, BLOCK);
        assertTrue(message.contains("not a tar archive"), message);
    }

    @Test
    void read_otherFirstMember_failsNamingIt() throws IOException {
        String message = failure(tar("README", "hello".getBytes(StandardCharsets.US_ASCII)), BLOCK);
        assertTrue(message.contains("first member is 'README', not TAPEQ-MANIFEST.json"), message);
    }

    @Test
    void read_malformedJson_failsWithParserPosition() throws IOException {
        String message = failure(tar(Manifest.MEMBER_NAME, "{\"format\": \"tapeq-aggregate-1\",".getBytes(
                StandardCharsets.US_ASCII)), BLOCK);
        assertTrue(message.startsWith("manifest is not valid JSON at line 1"), message);
    }

    @Test
    void read_otherFormatVersion_failsNamingIt() throws IOException {
        String json = new String(plan(2).layout().manifestJson, StandardCharsets.UTF_8)
                .replace("tapeq-aggregate-1", "tapeq-aggregate-2");
        String message = failure(tar(Manifest.MEMBER_NAME, json.getBytes(StandardCharsets.UTF_8)), BLOCK);
        assertTrue(message.contains("unsupported format \"tapeq-aggregate-2\""), message);
    }

    @Test
    void read_memberBeyondTheTapeFile_failsNamingTheMember() throws IOException {
        String json = new String(plan(3).layout().manifestJson, StandardCharsets.UTF_8)
                .replaceFirst("\"size\":2000", "\"size\":99999999");
        String message = failure(tar(Manifest.MEMBER_NAME, json.getBytes(StandardCharsets.UTF_8)), BLOCK);
        assertTrue(message.contains("member 2 (1002)"), message);
    }

    @Test
    void read_missingField_failsNamingTheField() throws IOException {
        String json = new String(plan(3).layout().manifestJson, StandardCharsets.UTF_8)
                .replace("\"pnfsid\":\"1001\",", "");
        String message = failure(tar(Manifest.MEMBER_NAME, json.getBytes(StandardCharsets.UTF_8)), BLOCK);
        assertEquals("manifest member 1: field 'pnfsid' must be a string", message);
    }

    @Test
    void read_emptyStream_fails() {
        String message = failure(new byte[0], BLOCK);
        assertTrue(message.contains("tape file") && message.contains("is empty"), message);
    }

    @Test
    void toJson_manifest_hasOneLinePerMemberAndTheDocumentedFields() {
        String json = new String(plan(3).layout().manifestJson, StandardCharsets.UTF_8);
        String[] lines = json.split("\n");
        assertEquals("{", lines[0]);
        assertEquals("  \"format\": \"tapeq-aggregate-1\",", lines[1]);
        assertEquals("  \"barcode\": \"A00009\",", lines[2]);
        assertEquals("  \"created\": \"2023-11-14T22:13:20Z\",", lines[5]);
        assertEquals("  \"block_size\": " + BLOCK + ",", lines[6]);
        assertTrue(lines[9].startsWith("    {\"name\":\"1000\",\"pnfsid\":\"1000\",\"size\":0,\"offset\":"), lines[9]);
        assertTrue(lines[9].endsWith(",\"checksum\":\"adler32:00000000\",\"storage_class\":\"exp:raw\","
                + "\"path\":\"/pnfs/f\u00e9e/0\",\"dataset\":\"ds\"},"), lines[9]);
        assertEquals("  \"members\": [", lines[8]);
        assertEquals(List.of("  ]", "}"), List.of(lines[12], lines[13]));
        assertEquals(14, lines.length);
    }
}
