package org.tapeq.daemon.control;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** The control socket's wire format (one JSON line each way) and its client. */
public final class ControlProtocol {

    public static final ObjectMapper JSON = new ObjectMapper();

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
        return JSON.readTree(buf.toByteArray());
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
            ObjectNode request = JSON.createObjectNode();
            request.put("command", command);
            request.putPOJO("args", args);
            writeLine(Channels.newOutputStream(ch), request);
            JsonNode answer = readLine(Channels.newInputStream(ch), Integer.MAX_VALUE);
            if (!answer.path("ok").asBoolean()) {
                throw new IOException(command + ": " + answer.path("error").asText("failed"));
            }
            return answer.path("result");
        }
    }
}
