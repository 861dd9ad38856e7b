package org.tapeq.daemon.control;

import java.io.ByteArrayOutputStream;
import java.io.CharConversionException;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** The control socket's wire format (one JSON line each way) and its client. */
public final class ControlProtocol {

    public static final ObjectMapper JSON = new ObjectMapper();
    private static final ObjectReader LINE_READER = JSON.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private ControlProtocol() {
    }

    static ObjectNode ok(JsonNode result) {
        ObjectNode n = JSON.createObjectNode();
        n.put("ok", true);
        n.set("result", result);
        return n;
    }

    static ObjectNode error(String message) {
        ObjectNode n = JSON.createObjectNode();
        n.put("ok", false);
        n.put("error", message);
        return n;
    }

    /** The request line for {@code command} with {@code args}: {@code {"command": ..., "args": [...]}}. */
    static ObjectNode request(String command, List<String> args) {
        ObjectNode request = JSON.createObjectNode();
        request.put("command", command);
        ArrayNode array = request.putArray("args");
        args.forEach(array::add);
        return request;
    }

    /**
     * The command a request line names. Strict, as nothing but {@link #request} writes one: an object with the
     * string {@code command} and an array of strings {@code args} (absent: none).
     *
     * @throws IllegalArgumentException if the request is not of that form, or the command is unknown or its
     *                                  arguments do not fit it
     */
    static AdminCommand decode(JsonNode request) {
        if (!request.isObject()) {
            throw new IllegalArgumentException("a control request is a JSON object, not " + request.getNodeType());
        }
        JsonNode command = request.get("command");
        if (command == null || !command.isTextual()) {
            throw new IllegalArgumentException("a control request needs \"command\" as a string");
        }
        JsonNode array = request.path("args");
        if (!array.isMissingNode() && !array.isArray()) {
            throw new IllegalArgumentException("\"args\" of a control request must be an array of strings");
        }
        List<String> args = new ArrayList<>();
        for (JsonNode a : array) {
            if (!a.isTextual()) {
                throw new IllegalArgumentException("\"args\" of a control request must be an array of strings");
            }
            args.add(a.textValue());
        }
        return AdminCommand.decode(command.textValue(), args);
    }

    /**
     * Read-ahead for {@link #readLine}'s callers: a connection carries one request and one answer, so bytes read
     * past the newline belong to nobody and buffering loses nothing (an answer of a large status was read one
     * system call per byte before).
     */
    private static final int BUFFER_BYTES = 64 << 10;

    /** A connection's one message, read through a {@link #BUFFER_BYTES} buffer ({@link #readLine} reads bytes). */
    static InputStream input(SocketChannel ch) {
        return new BufferedInputStream(Channels.newInputStream(ch), BUFFER_BYTES);
    }

    /**
     * One JSON value on one line of at most {@code max} bytes; content after the value is refused. Pass
     * {@link #input}: this reads a byte at a time.
     */
    static JsonNode readLine(InputStream in, int max) throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != -1 && b != '\n') {
            if (buf.size() >= max) {
                throw new IllegalArgumentException("control message longer than " + max + " bytes");
            }
            buf.write(b);
        }
        if (buf.size() == 0) {
            throw new IllegalArgumentException("empty control message");
        }
        try {
            return LINE_READER.readTree(buf.toByteArray());
        } catch (CharConversionException e) { // bytes Jackson took for UTF-32: a client error like bad JSON
            throw new IllegalArgumentException("control message is not JSON text: " + e.getMessage(), e);
        }
    }

    static void writeLine(OutputStream out, JsonNode n) throws IOException {
        out.write(JSON.writeValueAsBytes(n));
        out.write('\n');
        out.flush();
    }

    /**
     * Sends {@code command} to the daemon listening on {@code socket} and returns its result.
     *
     * @throws IOException if the daemon cannot be reached or the command failed (the message says why)
     */
    public static JsonNode call(Path socket, AdminCommand command) throws IOException {
        return call(socket, command.wire().name(), command.args());
    }

    /**
     * Sends one command, by its wire name and arguments, to the daemon listening on {@code socket} and returns its result.
     *
     * @throws IOException if the daemon cannot be reached or the command failed (the message says why)
     */
    public static JsonNode call(Path socket, String command, List<String> args) throws IOException {
        SocketChannel ch;
        try {
            ch = SocketChannel.open(UnixDomainSocketAddress.of(socket));
        } catch (IOException e) {
            throw new IOException("cannot reach the tapeq daemon at " + socket + " (is it running, and are you "
                    + "in its group?): " + e.getMessage(), e);
        }
        try (ch) {
            writeLine(Channels.newOutputStream(ch), request(command, args));
            JsonNode answer = readLine(input(ch), Integer.MAX_VALUE);
            if (!answer.path("ok").asBoolean()) {
                throw new IOException(command + ": " + answer.path("error").asText("failed"));
            }
            return answer.path("result");
        }
    }
}
