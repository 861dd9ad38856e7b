package org.tapeq.scheduler.catalog.hints;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import java.io.CharConversionException;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.protocol.PnfsIds;
import org.tapeq.scheduler.catalog.Catalog;
import org.tapeq.scheduler.model.FileRecord;

/**
 * Imports an ENDIT tape hint file into a {@link Catalog} as hint locations.
 *
 * <p>The file is one JSON object mapping each pnfsid to {@code {"volid": ..., "order": ..., "size": ...}}.
 * ENDIT's two generators write different value types, and both are accepted:
 * <ul>
 *   <li>{@code volid}: a string (a TSM volume id or name); a JSON integer is taken as its decimal text.
 *   <li>{@code order}: a non-negative integer (a JSON number or a string of digits: the position in a
 *       volume listing), or a TSM restore order {@code "xxxxxxxx-xxxxxxxx-xxxxxxxx-xxxxxxxx"} (four groups
 *       of 8 hex digits). A restore order is stored as {@code (group2 << 32) | group4}, which keeps the order
 *       exactly when groups 1 and 3 are zero and group 2 is below 2^31; other restore orders are rejected.
 *   <li>{@code size}: a non-negative number or numeric string, in bytes; a fraction (a size converted from
 *       KB/MB/GB) is rounded down. It may be absent (ENDIT omits it when the listing did not give bytes):
 *       then the hint is stored with size -1, meaning unknown.
 * </ul>
 * Other keys are ignored. An entry that breaks these rules, or whose key is not a pnfsid ({@link PnfsIds}),
 * is skipped and reported with the file name, the pnfsid and the reason; the rest of the file is imported.
 * A file that is not a JSON object, or is cut short, fails with an {@link IOException} naming it (the
 * batches stored before that point stay: importing is idempotent, so the fixed file can simply be
 * imported again).
 *
 * <p>The file is read with a streaming parser, so a file of millions of entries needs no tree in memory,
 * and stored through {@link Catalog#putHints} in batches of {@link #BATCH_SIZE}. Hints never replace a
 * location tapeq wrote.
 */
public final class EnditHints {
    private static final Logger LOG = LoggerFactory.getLogger(EnditHints.class);

    /** Hints per {@link Catalog#putHints} call (one transaction each). */
    public static final int BATCH_SIZE = 10_000;
    /** Rejected entries kept with their reasons in a {@link Result}; all are counted. */
    public static final int MAX_REPORTED = 1_000;
    /** Rejected entries logged individually; the rest only in the summary. */
    private static final int MAX_LOGGED = 20;

    static final String VOLID = "volid";
    static final String ORDER = "order";
    static final String SIZE = "size";

    private static final Pattern RESTORE_ORDER =
            Pattern.compile("([0-9A-Fa-f]{8})-([0-9A-Fa-f]{8})-([0-9A-Fa-f]{8})-([0-9A-Fa-f]{8})");
    private static final Pattern DIGITS = Pattern.compile("[0-9]+");
    private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);
    private static final BigDecimal LONG_MAX_DECIMAL = new BigDecimal(LONG_MAX);
    /** 2^63: the smallest size that does not round down to a long. */
    private static final BigDecimal LONG_LIMIT = LONG_MAX_DECIMAL.add(BigDecimal.ONE);
    /**
     * Field names are not interned: a hint file's keys are pnfsids, each seen once, so interning them only fills
     * the factory's process-wide name table (which every later import then copies) with names never seen again.
     */
    private static final JsonFactory JSON = JsonFactory.builder()
            .disable(JsonFactory.Feature.CANONICALIZE_FIELD_NAMES)
            .build();

    private EnditHints() {
    }

    /** An entry that was not imported. */
    public record Rejected(String file, String pnfsid, String reason) {
        @Override
        public String toString() {
            return file + ": " + pnfsid + ": " + reason;
        }
    }

    /**
     * What an import did.
     *
     * @param imported      hints stored (new, or changed from an earlier hint)
     * @param alreadyKnown  valid entries the catalog kept as they were: the file has a location written by
     *                      tapeq, was deleted, or already has the same hint
     * @param rejectedCount malformed entries skipped
     * @param rejected      the first {@link #MAX_REPORTED} of them, with reasons
     */
    public record Result(String file, long imported, long alreadyKnown, long rejectedCount, List<Rejected> rejected) {
        public Result {
            rejected = List.copyOf(rejected);
        }
    }

    /** Imports the hint file at {@code file}. */
    public static Result importFile(Path file, Catalog catalog) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return importFrom(in, file.toString(), catalog);
        }
    }

    /** Imports a hint file read from {@code in}; {@code fileName} is used in reports. */
    public static Result importFrom(InputStream in, String fileName, Catalog catalog) throws IOException {
        Objects.requireNonNull(in, "in");
        Objects.requireNonNull(fileName, "fileName");
        Objects.requireNonNull(catalog, "catalog");
        Importer importer = new Importer(fileName, catalog);
        try (JsonParser parser = JSON.createParser(in)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw new IOException(fileName + ": not an ENDIT hint file: expected a JSON object");
            }
            JsonToken token;
            while ((token = parser.nextToken()) == JsonToken.FIELD_NAME) {
                String pnfsid = parser.currentName();
                JsonToken value = parser.nextToken();
                if (value != JsonToken.START_OBJECT) {
                    parser.skipChildren();
                    importer.reject(pnfsid, "value is " + describe(value) + ", expected an object");
                    continue;
                }
                importer.entry(pnfsid, readEntry(parser));
            }
            if (token != JsonToken.END_OBJECT) {
                throw new IOException(fileName + ": hint file ends early or is not one JSON object");
            }
        } catch (CharConversionException e) {
            throw new IOException(fileName + ": not JSON text (" + e.getMessage() + ")", e);
        } catch (JsonProcessingException e) {
            // No location for a broken limit (e.g. a number of more than 1000 digits).
            String where = e.getLocation() == null ? ""
                    : " at line " + e.getLocation().getLineNr() + " column " + e.getLocation().getColumnNr();
            throw new IOException(fileName + ": malformed JSON: " + e.getOriginalMessage() + where, e);
        }
        importer.flush();
        Result result = importer.result();
        LOG.info("Imported tape hints from {}: {} stored, {} already known, {} rejected", fileName,
                result.imported(), result.alreadyKnown(), result.rejectedCount());
        return result;
    }

    /** The raw values of one entry: a String, BigInteger or BigDecimal, null if absent or JSON null. */
    private record Raw(Object volid, Object order, Object size) {
    }

    /** Reads the fields of the object the parser is at the start of, through its end. */
    private static Raw readEntry(JsonParser parser) throws IOException {
        Object volid = null;
        Object order = null;
        Object size = null;
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String name = parser.currentName();
            JsonToken token = parser.nextToken();
            Object value = scalar(parser, token);
            switch (name) {
                case VOLID -> volid = value;
                case ORDER -> order = value;
                case SIZE -> size = value;
                default -> {
                    // ENDIT versions have written other keys (timestamp, duplicates); not needed here.
                }
            }
        }
        return new Raw(volid, order, size);
    }

    /** A scalar's value, or a {@link Nested} marker for an object or array (which is skipped). */
    private static Object scalar(JsonParser parser, JsonToken token) throws IOException {
        switch (token) {
            case VALUE_STRING:
                return parser.getText();
            case VALUE_NUMBER_INT:
                return parser.getBigIntegerValue();
            case VALUE_NUMBER_FLOAT:
                try {
                    return parser.getDecimalValue();
                } catch (NumberFormatException e) {
                    return parser.getText(); // an exponent beyond BigDecimal's; refused as "not a number"
                }
            case VALUE_NULL:
                return null;
            case VALUE_TRUE:
            case VALUE_FALSE:
                return new Nested("a boolean");
            default:
                parser.skipChildren();
                return new Nested(token == JsonToken.START_ARRAY ? "an array" : "an object");
        }
    }

    private record Nested(String what) {
    }

    private static String describe(JsonToken token) {
        if (token == null) {
            return "missing";
        }
        return switch (token) {
            case START_ARRAY -> "an array";
            case VALUE_STRING -> "a string";
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
            case VALUE_NULL -> "null";
            case VALUE_TRUE, VALUE_FALSE -> "a boolean";
            default -> token.toString();
        };
    }

    /** The volid as text; throws with the reason if it is not acceptable. */
    static String volid(Object raw) {
        if (raw == null) {
            throw new IllegalArgumentException("no volid");
        }
        if (raw instanceof String s) {
            if (s.isBlank()) {
                throw new IllegalArgumentException("empty volid");
            }
            return s;
        }
        if (raw instanceof BigInteger i) {
            return i.toString();
        }
        throw new IllegalArgumentException("volid is " + what(raw) + ", expected a string");
    }

    /** The order as a non-negative long; throws with the reason if it is not acceptable. */
    static long order(Object raw) {
        if (raw == null) {
            throw new IllegalArgumentException("no order");
        }
        if (raw instanceof BigInteger i) {
            return nonNegativeLong(i, "order");
        }
        if (raw instanceof String s) {
            if (DIGITS.matcher(s).matches()) {
                return nonNegativeLong(new BigInteger(s), "order");
            }
            Matcher m = RESTORE_ORDER.matcher(s);
            if (m.matches()) {
                long g1 = Long.parseLong(m.group(1), 16);
                long g2 = Long.parseLong(m.group(2), 16);
                long g3 = Long.parseLong(m.group(3), 16);
                long g4 = Long.parseLong(m.group(4), 16);
                if (g1 != 0 || g3 != 0 || g2 >= (1L << 31)) {
                    throw new IllegalArgumentException("restore order '" + s + "' is outside the form tapeq can"
                            + " order (00000000-<below 80000000>-00000000-xxxxxxxx)");
                }
                return (g2 << 32) | g4;
            }
            throw new IllegalArgumentException("order '" + s + "' is not a non-negative integer or a TSM restore"
                    + " order");
        }
        if (raw instanceof BigDecimal d) {
            if (d.signum() < 0 || d.compareTo(LONG_MAX_DECIMAL) > 0) {
                throw new IllegalArgumentException("order " + d + " is " + (d.signum() < 0 ? "negative" : "too large"));
            }
            if (d.stripTrailingZeros().scale() > 0) {
                throw new IllegalArgumentException("order " + d + " is not an integer");
            }
            return d.longValueExact();
        }
        throw new IllegalArgumentException("order is " + what(raw) + ", expected an integer");
    }

    /** The size in bytes, -1 if absent; throws with the reason if it is not acceptable. */
    static long size(Object raw) {
        if (raw == null) {
            return -1;
        }
        BigDecimal value;
        if (raw instanceof BigInteger i) {
            value = new BigDecimal(i);
        } else if (raw instanceof BigDecimal d) {
            value = d;
        } else if (raw instanceof String s) {
            try {
                value = new BigDecimal(s.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("size '" + s + "' is not a number");
            }
        } else {
            throw new IllegalArgumentException("size is " + what(raw) + ", expected a number");
        }
        // Compared before any rounding: rounding 1e999999999 or 1e-999999999 would ask for a power of ten of a
        // billion digits (an ArithmeticException; 1e99999999 a hundred million digits, minutes of work).
        // toString, not toPlainString, for the same reason.
        if (value.signum() < 0) {
            throw new IllegalArgumentException("size " + value + " is negative");
        }
        if (value.compareTo(LONG_LIMIT) >= 0) {
            throw new IllegalArgumentException("size " + value + " is too large");
        }
        if (value.compareTo(BigDecimal.ONE) < 0) {
            return 0;
        }
        return value.setScale(0, RoundingMode.FLOOR).longValueExact();
    }

    private static long nonNegativeLong(BigInteger value, String what) {
        if (value.signum() < 0) {
            throw new IllegalArgumentException(what + " " + value + " is negative");
        }
        if (value.compareTo(LONG_MAX) > 0) {
            throw new IllegalArgumentException(what + " " + value + " is too large");
        }
        return value.longValueExact();
    }

    private static String what(Object raw) {
        if (raw instanceof Nested n) {
            return n.what();
        }
        if (raw instanceof String) {
            return "a string";
        }
        return "a number";
    }

    /** Validates entries, batches them into the catalog and keeps the counts. */
    private static final class Importer {
        private final String fileName;
        private final Catalog catalog;
        /** Grows as entries arrive: most hint files are small, and the largest batch is BATCH_SIZE. */
        private final List<FileRecord> batch = new ArrayList<>();
        private final List<Rejected> rejected = new ArrayList<>();
        private long rejectedCount;
        private long imported;
        private long alreadyKnown;

        Importer(String fileName, Catalog catalog) {
            this.fileName = fileName;
            this.catalog = catalog;
        }

        void entry(String pnfsid, Raw raw) {
            if (!PnfsIds.isPnfsId(pnfsid)) {
                reject(pnfsid, "not a pnfsid (expected 1-" + PnfsIds.MAX_LENGTH + " hexadecimal digits)");
                return;
            }
            FileRecord hint;
            try {
                hint = new FileRecord(pnfsid, volid(raw.volid()), -1, -1, -1, size(raw.size()), null, null, null,
                        null, order(raw.order()));
            } catch (IllegalArgumentException e) {
                reject(pnfsid, e.getMessage());
                return;
            }
            batch.add(hint);
            if (batch.size() >= BATCH_SIZE) {
                flush();
            }
        }

        void reject(String pnfsid, String reason) {
            rejectedCount++;
            Rejected r = new Rejected(fileName, pnfsid, reason);
            if (rejected.size() < MAX_REPORTED) {
                rejected.add(r);
            }
            if (rejectedCount <= MAX_LOGGED) {
                LOG.warn("Tape hint skipped: {}", r);
            }
        }

        void flush() {
            if (batch.isEmpty()) {
                return;
            }
            int stored = catalog.putHints(batch);
            imported += stored;
            alreadyKnown += batch.size() - stored;
            batch.clear();
        }

        Result result() {
            return new Result(fileName, imported, alreadyKnown, rejectedCount, rejected);
        }
    }
}
