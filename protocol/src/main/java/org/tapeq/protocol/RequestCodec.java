package org.tapeq.protocol;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/**
 * Writes and parses request files. The written form is one JSON object on one line, ENDIT's keys first
 * (in ENDIT's order) and tapeq's {@link Request.Extension} under {@code "tapeq"}. Parsing is strict about
 * the keys it knows (types, duplicates, required fields) and ignores keys it does not know, so newer
 * providers can add fields.
 */
public final class RequestCodec {
    static final String FILE_SIZE = "file_size";
    static final String PARENT_PID = "parent_pid";
    static final String TIME = "time";
    static final String STORAGE_CLASS = "storage_class";
    static final String ACTION = "action";
    static final String PATH = "path";
    static final String CHECKSUM_TYPE = "checksumType";
    static final String CHECKSUM_VALUE = "checksumValue";
    static final String TAPEQ = "tapeq";
    static final String X_VERSION = "version";
    static final String X_REQUEST_ID = "request_id";
    static final String X_PRIORITY = "priority";
    static final String X_ACTIVITY = "activity";
    static final String X_COLOCATION = "colocation";
    static final String X_DEADLINE = "deadline";

    private static final JsonFactory JSON = JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    private RequestCodec() {
    }

    /** The file content for {@code request}: one line of compact JSON, UTF-8, no trailing newline (as ENDIT). */
    public static byte[] toBytes(Request request) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        try (JsonGenerator json = JSON.createGenerator(bytes)) {
            json.writeStartObject();
            json.writeNumberField(FILE_SIZE, request.fileSize());
            if (request.parentPid() != null) {
                json.writeNumberField(PARENT_PID, request.parentPid());
            }
            json.writeNumberField(TIME, request.time());
            writeNullable(json, STORAGE_CLASS, request.storageClass());
            json.writeStringField(ACTION, request.action().wireName());
            writeNullable(json, PATH, request.path());
            if (request.action() == Request.Action.MIGRATE) {
                // ENDIT always writes both checksum fields for a flush, "" when unknown.
                json.writeStringField(CHECKSUM_TYPE, nullToEmpty(request.checksumType()));
                json.writeStringField(CHECKSUM_VALUE, nullToEmpty(request.checksumValue()));
            } else if (request.checksumType() != null && request.checksumValue() != null) {
                json.writeStringField(CHECKSUM_TYPE, request.checksumType());
                json.writeStringField(CHECKSUM_VALUE, request.checksumValue());
            }
            Request.Extension x = request.extension();
            if (x != null) {
                json.writeObjectFieldStart(TAPEQ);
                json.writeNumberField(X_VERSION, x.version());
                if (x.requestId() != null) {
                    json.writeStringField(X_REQUEST_ID, x.requestId());
                }
                json.writeNumberField(X_PRIORITY, x.priority());
                if (x.activity() != null) {
                    json.writeStringField(X_ACTIVITY, x.activity());
                }
                if (x.colocation() != null) {
                    json.writeStringField(X_COLOCATION, x.colocation());
                }
                if (x.deadline() > 0) {
                    json.writeNumberField(X_DEADLINE, x.deadline());
                }
                json.writeEndObject();
            }
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot encode request " + request, e); // in-memory: never
        }
        return bytes.toByteArray();
    }

    /** Reads and parses the request file at {@code file}. */
    public static Request read(Path file) throws IOException {
        return parse(file.toString(), ProtocolFiles.readSmallFile(file, ProtocolFiles.MAX_PROTOCOL_FILE_SIZE));
    }

    /**
     * Parses request-file content; {@code file} only names the source in error messages.
     *
     * @throws ProtocolException naming the file and the reason when the content is not a valid request
     */
    public static Request parse(String file, byte[] content) throws ProtocolException {
        if (content.length == 0) {
            throw new ProtocolException(file, "is empty (perhaps still being written)");
        }
        Fields f = new Fields();
        try (JsonParser json = JSON.createParser(content)) {
            expect(file, json.nextToken(), JsonToken.START_OBJECT, "the content is not a JSON object");
            while (json.nextToken() == JsonToken.FIELD_NAME) {
                String name = json.currentName();
                JsonToken value = json.nextToken();
                switch (name) {
                    case FILE_SIZE: f.fileSize = number(file, json, value, name); break;
                    case PARENT_PID: f.parentPid = number(file, json, value, name); break;
                    case TIME: f.time = number(file, json, value, name); break;
                    case STORAGE_CLASS: f.storageClass = text(file, json, value, name); break;
                    case ACTION: f.action = text(file, json, value, name); break;
                    case PATH: f.path = text(file, json, value, name); break;
                    case CHECKSUM_TYPE: f.checksumType = text(file, json, value, name); break;
                    case CHECKSUM_VALUE: f.checksumValue = text(file, json, value, name); break;
                    case TAPEQ: f.extension = extension(file, json, value); break;
                    default: json.skipChildren(); break;
                }
            }
            if (json.currentToken() != JsonToken.END_OBJECT || hasTrailingContent(json)) {
                throw new ProtocolException(file, "has content after the JSON object");
            }
        } catch (JsonParseException e) {
            throw new ProtocolException(file, "is not valid JSON (" + e.getOriginalMessage() + ")", e);
        } catch (ProtocolException e) {
            throw e;
        } catch (IOException e) {
            throw new ProtocolException(file, "cannot be parsed (" + e.getMessage() + ")", e);
        }
        return f.toRequest(file);
    }

    private static boolean hasTrailingContent(JsonParser json) throws IOException {
        try {
            return json.nextToken() != null;
        } catch (JsonParseException e) {
            return true;
        }
    }

    private static Request.Extension extension(String file, JsonParser json, JsonToken token) throws IOException {
        if (token == JsonToken.VALUE_NULL) {
            return null;
        }
        expect(file, token, JsonToken.START_OBJECT, "\"" + TAPEQ + "\" must be a JSON object");
        int version = 0;
        String requestId = null;
        String activity = null;
        String colocation = null;
        long priority = 0;
        long deadline = 0;
        while (json.nextToken() == JsonToken.FIELD_NAME) {
            String name = json.currentName();
            JsonToken value = json.nextToken();
            String key = TAPEQ + "." + name;
            switch (name) {
                case X_VERSION: version = (int) bounded(file, key, number(file, json, value, key), Integer.MAX_VALUE); break;
                case X_REQUEST_ID: requestId = text(file, json, value, key); break;
                case X_PRIORITY: priority = number(file, json, value, key); break;
                case X_ACTIVITY: activity = text(file, json, value, key); break;
                case X_COLOCATION: colocation = text(file, json, value, key); break;
                case X_DEADLINE: deadline = number(file, json, value, key); break;
                default: json.skipChildren(); break;
            }
        }
        if (priority < Integer.MIN_VALUE || priority > Integer.MAX_VALUE) {
            throw new ProtocolException(file, "\"" + TAPEQ + "." + X_PRIORITY + "\" is out of range: " + priority);
        }
        return new Request.Extension(version, requestId, (int) priority, activity, colocation, deadline);
    }

    private static long bounded(String file, String key, long value, long max) throws ProtocolException {
        if (value < 0 || value > max) {
            throw new ProtocolException(file, "\"" + key + "\" is out of range: " + value);
        }
        return value;
    }

    private static void expect(String file, JsonToken actual, JsonToken expected, String reason)
            throws ProtocolException {
        if (actual != expected) {
            throw new ProtocolException(file, reason);
        }
    }

    /** A JSON integer, or a string of decimal digits (tolerated from hand-written requests). */
    private static long number(String file, JsonParser json, JsonToken token, String key) throws IOException {
        if (token == JsonToken.VALUE_NUMBER_INT) {
            if (json.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
                throw new ProtocolException(file, "\"" + key + "\" is out of range: " + json.getText());
            }
            return json.getLongValue();
        }
        if (token == JsonToken.VALUE_STRING) {
            String s = json.getText().strip();
            try {
                return Long.parseLong(s);
            } catch (NumberFormatException e) {
                throw new ProtocolException(file, "\"" + key + "\" is not an integer: \"" + abbreviate(s) + "\"");
            }
        }
        json.skipChildren();
        throw new ProtocolException(file, "\"" + key + "\" must be an integer, not " + describe(token));
    }

    private static String text(String file, JsonParser json, JsonToken token, String key) throws IOException {
        if (token == JsonToken.VALUE_NULL) {
            return null;
        }
        if (token == JsonToken.VALUE_STRING) {
            return json.getText();
        }
        json.skipChildren();
        throw new ProtocolException(file, "\"" + key + "\" must be a string, not " + describe(token));
    }

    private static String describe(JsonToken token) {
        switch (token) {
            case START_OBJECT: return "an object";
            case START_ARRAY: return "an array";
            case VALUE_STRING: return "a string";
            case VALUE_NUMBER_FLOAT: return "a fractional number";
            case VALUE_NUMBER_INT: return "an integer";
            case VALUE_TRUE:
            case VALUE_FALSE: return "a boolean";
            case VALUE_NULL: return "null";
            default: return String.valueOf(token);
        }
    }

    private static void writeNullable(JsonGenerator json, String key, String value) throws IOException {
        if (value == null) {
            json.writeNullField(key);
        } else {
            json.writeStringField(key, value);
        }
    }

    private static String nullToEmpty(String s) {
        return s == null ? "" : s;
    }

    private static String abbreviate(String s) {
        return s.length() <= 40 ? s : s.substring(0, 40) + "...";
    }

    /** Fields as read, before the checks that need all of them. */
    private static final class Fields {
        Long fileSize;
        Long parentPid;
        Long time;
        String storageClass;
        String action;
        String path;
        String checksumType;
        String checksumValue;
        Request.Extension extension;

        Request toRequest(String file) throws ProtocolException {
            if (action == null) {
                throw new ProtocolException(file, "has no \"" + ACTION + "\"");
            }
            Request.Action parsed = Request.Action.fromWireName(action);
            if (parsed == null) {
                throw new ProtocolException(file, "has unknown action \"" + abbreviate(action)
                        + "\" (expected \"migrate\" or \"recall\")");
            }
            if (fileSize == null) {
                throw new ProtocolException(file, "has no \"" + FILE_SIZE + "\"");
            }
            if (fileSize < 0) {
                throw new ProtocolException(file, "has a negative \"" + FILE_SIZE + "\": " + fileSize);
            }
            return Request.of(parsed, fileSize, time == null ? 0 : time, storageClass, path, checksumType,
                    checksumValue, parentPid, extension);
        }
    }
}
