package org.tapeq.scheduler.format;

import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;

/**
 * Reading and writing the JSON documents on tape (label and manifest) with a field-by-field check whose
 * messages name the document and the field.
 */
final class Json {
    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private Json() {
    }

    /** A string as a JSON value ({@code null} for null). */
    static String quote(String value) {
        return value == null ? "null" : compact(TextNode.valueOf(value));
    }

    /** Appends {@code "name": json} as one indented line of an object. */
    static void line(StringBuilder sb, String name, String json, boolean last) {
        sb.append("  ").append(quote(name)).append(": ").append(json).append(last ? "\n" : ",\n");
    }

    static ObjectNode object() {
        return JsonNodeFactory.instance.objectNode();
    }

    /** One JSON value on one line. */
    static String compact(JsonNode node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialise " + node.getNodeType(), e);
        }
    }

    /** The top-level object of a document. */
    static ObjectNode parseObject(byte[] bytes, String what) throws TapeFormatException {
        JsonNode root;
        try {
            root = MAPPER.readTree(bytes);
        } catch (JsonProcessingException e) {
            String where = e.getLocation() == null ? ""
                    : " at line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr();
            throw new TapeFormatException(what + " is not valid JSON" + where + ": "
                    + TarFormat.printable(e.getOriginalMessage()), e);
        } catch (IOException e) {
            throw new TapeFormatException(what + " is not valid JSON: " + e.getMessage(), e);
        }
        if (root == null || root.isMissingNode()) {
            throw new TapeFormatException(what + " is empty");
        }
        if (!root.isObject()) {
            throw new TapeFormatException(what + " is not a JSON object but " + root.getNodeType());
        }
        return (ObjectNode) root;
    }

    /** Checks the {@code format} field first, so that another format is reported as such. */
    static void requireFormat(JsonNode node, String expected, String what) throws TapeFormatException {
        JsonNode format = node.get("format");
        if (format == null || !format.isTextual()) {
            throw new TapeFormatException(what + " has no 'format' field (expected \"" + expected + "\")");
        }
        if (!expected.equals(format.textValue())) {
            throw new TapeFormatException(what + " has unsupported format \"" + TarFormat.printable(format.textValue())
                    + "\" (this version of tapeq reads \"" + expected + "\")");
        }
    }

    static String text(JsonNode node, String field, String what) throws TapeFormatException {
        JsonNode value = node.get(field);
        if (value == null || !value.isTextual()) {
            throw new TapeFormatException(what + ": field '" + field + "' must be a string");
        }
        return value.textValue();
    }

    static String textOrNull(JsonNode node, String field, String what) throws TapeFormatException {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isTextual()) {
            throw new TapeFormatException(what + ": field '" + field + "' must be a string or null");
        }
        return value.textValue();
    }

    static long nonNegative(JsonNode node, String field, String what) throws TapeFormatException {
        JsonNode value = node.get(field);
        if (value == null || !value.isIntegralNumber() || !value.canConvertToLong() || value.longValue() < 0) {
            throw new TapeFormatException(what + ": field '" + field + "' must be a non-negative integer");
        }
        return value.longValue();
    }

    static int positiveInt(JsonNode node, String field, String what) throws TapeFormatException {
        JsonNode value = node.get(field);
        if (value == null || !value.isIntegralNumber() || !value.canConvertToInt() || value.intValue() <= 0) {
            throw new TapeFormatException(what + ": field '" + field + "' must be a positive 32-bit integer");
        }
        return value.intValue();
    }

    /** An ISO-8601 instant such as {@code 2025-01-31T12:00:00Z}, as epoch milliseconds. */
    static long instant(JsonNode node, String field, String what) throws TapeFormatException {
        String text = text(node, field, what);
        try {
            return Instant.parse(text).toEpochMilli();
        } catch (DateTimeParseException | ArithmeticException e) {
            throw new TapeFormatException(what + ": field '" + field + "' is not an ISO-8601 instant: \""
                    + TarFormat.printable(text) + "\"", e);
        }
    }

    static String instant(long millis) {
        return Instant.ofEpochMilli(millis).toString();
    }
}
