package org.tapeq.scheduler.format;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.TapeFileSource;

/**
 * The label of a cartridge: tape file 0, a tar archive holding one member {@value #MEMBER_NAME} (see
 * docs/tape-format.md).
 *
 * @param barcode       the cartridge's barcode
 * @param family        the tape family it belongs to
 * @param createdMillis when it was labelled (epoch milliseconds; stored as ISO-8601)
 * @param blockSize     bytes per tape block the cartridge is written with
 */
public record TapeLabel(String barcode, String family, long createdMillis, int blockSize) {

    /** The value of the {@code format} field of this version of the format. */
    public static final String FORMAT = "tapeq-tape-1";
    /** Name of the one tar member of tape file 0. */
    public static final String MEMBER_NAME = "TAPEQ-LABEL.json";

    private static final String WHAT = "tape label " + MEMBER_NAME;

    public TapeLabel {
        Objects.requireNonNull(barcode, "barcode");
        Objects.requireNonNull(family, "family");
        if (barcode.isBlank()) {
            throw new IllegalArgumentException("blank barcode");
        }
        if (blockSize <= 0) {
            throw new IllegalArgumentException("block size must be positive: " + blockSize);
        }
    }

    /** Tape file 0 for this label: a small tar archive (a few KiB), written as one short block. */
    public TapeFileSource source() {
        byte[] archive = archive();
        return new TapeFileSource() {
            @Override
            public long length() {
                return archive.length;
            }

            @Override
            public void writeTo(OutputStream out) throws IOException {
                out.write(archive);
            }
        };
    }

    /** {@link #parse} for the cartridge in the drive: a label of another barcode is a {@link FaultKind#LABEL} fault. */
    public static TapeLabel parseFor(byte[] firstBytesOfTapeFile0, String barcode) throws TapeFault {
        TapeLabel label = parse(firstBytesOfTapeFile0);
        if (!barcode.equals(label.barcode())) {
            throw new TapeFault(FaultKind.LABEL, "cartridge " + barcode + " carries the label of " + label.barcode());
        }
        return label;
    }

    /**
     * Reads a label from the first bytes of tape file 0 (the first block is enough).
     *
     * @throws TapeFault of kind {@link FaultKind#LABEL} if the tape is blank, tape file 0 is not a tar archive,
     *                   does not start with {@value #MEMBER_NAME}, or the label is not valid JSON of format
     *                   {@value #FORMAT}
     */
    public static TapeLabel parse(byte[] firstBytesOfTapeFile0) throws TapeFault {
        if (firstBytesOfTapeFile0 == null || firstBytesOfTapeFile0.length == 0) {
            throw new TapeFault(FaultKind.LABEL, "tape is blank: tape file 0 is empty (cartridge not labelled)");
        }
        if (allZero(firstBytesOfTapeFile0)) {
            throw new TapeFault(FaultKind.LABEL, "tape is blank: the first " + firstBytesOfTapeFile0.length
                    + " bytes of tape file 0 are zeros (cartridge not labelled or erased)");
        }
        byte[] json;
        try {
            json = TarFormat.readFirstMember(new ByteArrayInputStream(firstBytesOfTapeFile0),
                    firstBytesOfTapeFile0.length, MEMBER_NAME, "tape file 0");
        } catch (IOException e) {
            throw new TapeFault(FaultKind.LABEL, "no tapeq label: " + e.getMessage(), e);
        }
        try {
            ObjectNode root = Json.parseObject(json, WHAT);
            Json.requireFormat(root, FORMAT, WHAT);
            String barcode = Json.text(root, "barcode", WHAT);
            if (barcode.isBlank()) {
                throw new TapeFormatException(WHAT + ": field 'barcode' is blank");
            }
            return new TapeLabel(barcode, Json.text(root, "family", WHAT), Json.instant(root, "created", WHAT),
                    Json.positiveInt(root, "block_size", WHAT));
        } catch (TapeFormatException e) {
            throw new TapeFault(FaultKind.LABEL, "unusable tapeq label: " + e.getMessage(), e);
        }
    }

    /** The label document, one field per line. */
    byte[] toJson() {
        StringBuilder sb = new StringBuilder("{\n");
        Json.line(sb, "format", Json.quote(FORMAT), false);
        Json.line(sb, "barcode", Json.quote(barcode), false);
        Json.line(sb, "family", Json.quote(family), false);
        Json.line(sb, "created", Json.quote(Json.instant(createdMillis)), false);
        Json.line(sb, "block_size", Integer.toString(blockSize), true);
        return sb.append("}\n").toString().getBytes(StandardCharsets.UTF_8);
    }

    private byte[] archive() {
        byte[] json = toJson();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try {
            TarArchiveOutputStream tar = TarFormat.newWriter(bytes);
            tar.putArchiveEntry(TarFormat.fileEntry(MEMBER_NAME, json.length, createdMillis));
            tar.write(json);
            tar.closeArchiveEntry();
            tar.finish();
        } catch (IOException e) {
            throw new UncheckedIOException("writing to memory failed", e);
        }
        return bytes.toByteArray();
    }

    private static boolean allZero(byte[] bytes) {
        for (byte b : bytes) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }
}
