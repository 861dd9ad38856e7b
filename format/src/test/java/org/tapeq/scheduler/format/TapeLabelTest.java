package org.tapeq.scheduler.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.TapeFileSource;

class TapeLabelTest {
    static final long CREATED = 1_738_324_800_000L; // 2025-01-31T12:00:00Z
    static final TapeLabel LABEL = new TapeLabel("A00042L9", "atlas-raw", CREATED, 256 * 1024);

    @TempDir
    Path dir;

    private static byte[] bytes(TapeFileSource source) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        source.writeTo(out);
        assertEquals(source.length(), out.size());
        return out.toByteArray();
    }

    private static byte[] tar(String name, String content) throws IOException {
        byte[] data = content.getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        TarArchiveOutputStream tar = TarFormat.newWriter(out);
        tar.putArchiveEntry(TarFormat.fileEntry(name, data.length, CREATED));
        tar.write(data);
        tar.closeArchiveEntry();
        tar.finish();
        return out.toByteArray();
    }

    private static String labelJson(String format, String blockSize) {
        return "{\"format\": \"" + format + "\", \"barcode\": \"A1\", \"family\": \"f\", "
                + "\"created\": \"2025-01-31T12:00:00Z\", \"block_size\": " + blockSize + "}";
    }

    private static String failure(byte[] firstBytes) {
        TapeFault fault = assertThrows(TapeFault.class, () -> TapeLabel.parse(firstBytes));
        assertEquals(FaultKind.LABEL, fault.kind());
        return fault.getMessage();
    }

    @Test
    void parse_writtenLabel_returnsTheSameLabel() throws Exception {
        byte[] tapeFile0 = bytes(LABEL.source());

        assertEquals(LABEL, TapeLabel.parse(tapeFile0));
        assertEquals(0, tapeFile0.length % 512);
        assertTrue(tapeFile0.length <= 4096, tapeFile0.length + " bytes");
    }

    @Test
    void parse_firstBlockOfALongerTapeFile_returnsTheLabel() throws Exception {
        byte[] block = Arrays.copyOf(bytes(LABEL.source()), 256 * 1024); // a backend reading a whole block
        assertEquals(LABEL, TapeLabel.parse(block));
    }

    @Test
    void toJson_label_hasTheDocumentedFields() {
        assertEquals("{\n  \"format\": \"tapeq-tape-1\",\n  \"barcode\": \"A00042L9\",\n  \"family\": \"atlas-raw\",\n"
                + "  \"created\": \"2025-01-31T12:00:00Z\",\n  \"block_size\": 262144\n}\n",
                new String(LABEL.toJson(), StandardCharsets.UTF_8));
    }

    @Test
    void gnuTar_writtenLabel_listsAndExtractsTheLabelMember() throws Exception {
        Path archive = Files.write(dir.resolve("label.tar"), bytes(LABEL.source()));
        Path out = Files.createDirectory(dir.resolve("x"));

        List<GnuTar.Listed> listed = GnuTar.list(archive);
        GnuTar.extract(archive, out);

        assertEquals(List.of(new GnuTar.Listed(TapeLabel.MEMBER_NAME, LABEL.toJson().length)), listed);
        assertEquals(new String(LABEL.toJson(), StandardCharsets.UTF_8),
                Files.readString(out.resolve(TapeLabel.MEMBER_NAME)));
    }

    @Test
    void parse_emptyTapeFile_failsAsBlank() {
        assertTrue(failure(new byte[0]).startsWith("tape is blank"));
    }

    @Test
    void parse_zeros_failsAsBlank() {
        assertTrue(failure(new byte[64 * 1024]).startsWith("tape is blank"));
    }

    @Test
    void parse_notATar_failsSayingSo() {
        byte[] text = "#!/bin/sh\necho something else entirely\n".repeat(50).getBytes(StandardCharsets.US_ASCII);
        String message = failure(text);
        assertTrue(message.contains("not a tar archive"), message);
    }

    @Test
    void parse_tarWithoutLabelMember_failsNamingTheFirstMember() throws IOException {
        String message = failure(tar("backup/etc/passwd", "root:x:0:0"));
        assertTrue(message.contains("first member is 'backup/etc/passwd', not TAPEQ-LABEL.json"), message);
    }

    @Test
    void parse_tarByGnuTarWithoutLabelMember_failsNamingTheFirstMember() throws Exception {
        Files.writeString(dir.resolve("notes.txt"), "not a label");
        Path archive = dir.resolve("other.tar");
        Process tar = new ProcessBuilder(GnuTar.TAR, "--format=pax", "-cf", archive.toString(), "-C", dir.toString(),
                "notes.txt").start();
        assertEquals(0, tar.waitFor());

        String message = failure(Files.readAllBytes(archive));

        assertTrue(message.contains("first member is 'notes.txt'"), message);
    }

    @Test
    void parse_otherFormatVersion_failsNamingIt() throws IOException {
        String message = failure(tar(TapeLabel.MEMBER_NAME, labelJson("tapeq-tape-2", "1024")));
        assertTrue(message.contains("unsupported format \"tapeq-tape-2\""), message);
    }

    @Test
    void parse_malformedJson_failsSayingSo() throws IOException {
        String message = failure(tar(TapeLabel.MEMBER_NAME, "{\"format\": \"tapeq-tape-1\", barcode: A1}"));
        assertTrue(message.contains("is not valid JSON at line 1"), message);
    }

    @Test
    void parse_badBlockSize_failsNamingTheField() throws IOException {
        String message = failure(tar(TapeLabel.MEMBER_NAME, labelJson("tapeq-tape-1", "-5")));
        assertTrue(message.contains("'block_size' must be a positive 32-bit integer"), message);
    }

    @Test
    void parse_badCreated_failsNamingTheField() throws IOException {
        String message = failure(tar(TapeLabel.MEMBER_NAME,
                labelJson("tapeq-tape-1", "1024").replace("2025-01-31T12:00:00Z", "yesterday")));
        assertTrue(message.contains("'created' is not an ISO-8601 instant"), message);
    }

    @Test
    void parse_labelCutShort_failsAsTruncated() throws IOException {
        byte[] cut = Arrays.copyOf(bytes(LABEL.source()), 600);
        String message = failure(cut);
        assertTrue(message.contains("truncated"), message);
    }

    @Test
    void parse_jsonArrayInsteadOfObject_fails() throws IOException {
        String message = failure(tar(TapeLabel.MEMBER_NAME, "[1, 2, 3]"));
        assertTrue(message.contains("is not a JSON object"), message);
    }

    @Test
    void constructor_nonPositiveBlockSize_isRejected() {
        assertThrows(IllegalArgumentException.class, () -> new TapeLabel("A1", "f", CREATED, 0));
    }
}
