package org.tapeq.daemon.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import com.fasterxml.jackson.core.JsonProcessingException;
import org.junit.jupiter.api.Test;
import org.tapeq.fuzz.Fuzz;
import org.tapeq.fuzz.Gen;
import org.tapeq.fuzz.Mutations;

/**
 * Fuzzes the daemon's side of the control socket (docs/testing.md, "Fuzzing"): a mutated request line is decoded
 * to a command or refused with an {@link IllegalArgumentException} or a JSON error, each with a message (what the
 * client is answered); every command sent as the command line sends it decodes back to itself.
 */
class ControlProtocolFuzzTest {
    private static final int ROUND_TRIPS = 1000;

    @Test
    void requestLine_mutated_decodesOrIsRefusedWithAReason() {
        Fuzz.mutants("control request", REQUESTS, input -> {
            AdminCommand command;
            try {
                command = ControlProtocol.decode(ControlProtocol.readLine(new ByteArrayInputStream(input.bytes()),
                        ControlServer.MAX_REQUEST_BYTES));
            } catch (IllegalArgumentException | JsonProcessingException e) {
                assertFalse(e.getMessage() == null || e.getMessage().isBlank(), "no reason given");
                return;
            }
            assertEquals(command, sent(command.wire().name(), command.args()), "sent back differently");
        });
    }

    @Test
    void requestLine_sent_decodesToTheCommand() {
        Fuzz.run("control request sent", ROUND_TRIPS, ControlProtocolFuzzTest::command,
                command -> assertEquals(command, sent(command.wire().name(), command.args())));
    }

    /**
     * Garbage the daemon took silently before (seen while writing the fuzzer): arguments that are not strings were
     * taken as "", content after the request and a non-array "args" were ignored, a command that is not a string
     * was taken as its text, and a force flag other than true/false meant false.
     */
    @Test
    void requestLine_notOfTheClientsForm_refused() {
        for (String line : List.of("{\"command\":\"drive-down\",\"args\":[{},[]]}", "{\"command\":\"status\"} x",
                "{\"command\":\"drive-up\",\"args\":\"drive1\"}", "[\"status\"]", "{\"command\":7}",
                "{\"command\":\"cartridge-label\",\"args\":[\"A\",\"f\",\"yes\"]}")) {
            assertThrows(Exception.class, () -> ControlProtocol.decode(ControlProtocol.readLine(
                    new ByteArrayInputStream(line.getBytes(StandardCharsets.UTF_8)), 1000)), line);
        }
    }

    /**
     * Found by the long fuzz run: bytes Jackson takes for UTF-32 failed with a CharConversionException, which the
     * server answered as a failed command and logged with its stack trace; now refused as a client error.
     */
    @Test
    void requestLine_utf32Garbage_refusedAsAClientError() {
        assertThrows(IllegalArgumentException.class, () -> ControlProtocol.readLine(new ByteArrayInputStream(
                new byte[] {0, 0, 0, '{', 0x63, 0x21, 0, 0}), ControlServer.MAX_REQUEST_BYTES));
    }

    private static final Mutations REQUESTS = Mutations.ofText(List.of(
            "{\"command\":\"status\",\"args\":[]}\n",
            "{\"command\":\"drive-down\",\"args\":[\"drive1\",\"cleaning\"]}\n",
            "{\"command\":\"cartridge-label\",\"args\":[\"TQ0000L9\",\"atlas\",\"true\"]}\n",
            "{\"command\":\"catalog-rebuild\",\"args\":[\"A\",\"B\",\"C\"]}\n"),
            List.of("\"command\"", "\"args\"", "\"status\"", "\"drive-down\"", "\"drive-up\"", "\"drive-unload-idle\"",
                    "\"inventory\"", "\"cartridge-list\"", "\"cartridge-disable\"", "\"cartridge-enable\"",
                    "\"cartridge-label\"", "\"cartridge-verify\"", "\"catalog-rebuild\"", "\"true\"", "\"false\"",
                    "null", "[]", "{}", "\n"),
            ControlServer.MAX_REQUEST_BYTES + 16);

    /** Any command with any arguments it takes. */
    private static AdminCommand command(Random r) {
        AdminCommand.Wire wire = Gen.pick(r, AdminCommand.WIRES);
        int n = wire.minArgs() + r.nextInt(Math.min(wire.maxArgs() - wire.minArgs(), 3) + 1);
        List<String> args = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            args.add(Gen.text(r, 0, 20));
        }
        if (wire == AdminCommand.CartridgeLabel.WIRE) {
            args.set(2, Boolean.toString(r.nextBoolean()));
        }
        if (wire == AdminCommand.CartridgeVerify.WIRE) {
            args.set(1, Integer.toString(r.nextInt(Integer.MAX_VALUE)));
        }
        if (wire == AdminCommand.Status.WIRE) {
            // a status takes a page: OFFSET, then LIMIT (0..MAX_LIMIT)
            for (int i = 0; i < args.size(); i++) {
                args.set(i, Integer.toString(i == 0 ? r.nextInt(Integer.MAX_VALUE) : r.nextInt(StatusPage.MAX_LIMIT + 1)));
            }
        }
        return AdminCommand.decode(wire.name(), args);
    }

    /** What the daemon decodes from the line the command line sends. */
    private static AdminCommand sent(String name, List<String> args) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        ControlProtocol.writeLine(line, ControlProtocol.request(name, args));
        return ControlProtocol.decode(ControlProtocol.readLine(new ByteArrayInputStream(line.toByteArray()),
                ControlServer.MAX_REQUEST_BYTES));
    }
}
