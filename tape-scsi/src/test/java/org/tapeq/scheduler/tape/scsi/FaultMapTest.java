package org.tapeq.scheduler.tape.scsi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.scsi.FaultMap.Op;

/** Messages as the tools print them (captured from the lab library where it can produce them). */
class FaultMapTest {

    static Stream<Arguments> messages() {
        return Stream.of(
                Arguments.of(Op.WRITE, "dd: error writing '/dev/vtl/lun1-nst': No space left on device\n"
                        + "255+0 records in\n254+0 records out", FaultKind.TAPE_FULL),
                Arguments.of(Op.READ, "dd: error reading '/dev/nst0': Input/output error", FaultKind.MEDIA),
                Arguments.of(Op.WRITE, "dd: error writing '/dev/nst0': Input/output error", FaultKind.MEDIA),
                Arguments.of(Op.POSITION, "/dev/nst0: Input/output error", FaultKind.DRIVE),
                Arguments.of(Op.WRITE, "dd: failed to open '/dev/nst0': Read-only file system", FaultKind.MEDIA),
                Arguments.of(Op.READ, "dd: failed to open '/dev/vtl/lun1-nst': No medium found", FaultKind.DRIVE),
                Arguments.of(Op.POSITION, "/dev/vtl/lun1-nst: No medium found", FaultKind.DRIVE),
                Arguments.of(Op.POSITION, "mt: /dev/nst7: No such file or directory", FaultKind.DRIVE),
                Arguments.of(Op.READ, "dd: failed to open '/dev/nst0': Device or resource busy", FaultKind.DRIVE),
                Arguments.of(Op.READ, "dd: error reading '/dev/nst0': Cannot allocate memory", FaultKind.MEDIA),
                Arguments.of(Op.ROBOT, "mtx: Request Sense: Sense Key=Illegal Request\nMOVE MEDIUM from Element "
                        + "Address 1000 to 500 Failed", FaultKind.ROBOT),
                Arguments.of(Op.ROBOT, "mtx: Request Sense: Sense Key=Hardware Error", FaultKind.ROBOT),
                Arguments.of(Op.ROBOT, "mtx: cannot open SCSI device '/dev/sg9' - No such file or directory",
                        FaultKind.ROBOT),
                Arguments.of(Op.READ, "ssh: connect to host tapehost port 22: Connection refused", FaultKind.DRIVE),
                Arguments.of(Op.ROBOT, "ssh: connect to host tapehost port 22: Connection timed out", FaultKind.ROBOT),
                Arguments.of(Op.WRITE, "something nobody has seen", FaultKind.DRIVE),
                Arguments.of(Op.ROBOT, "something nobody has seen", FaultKind.ROBOT));
    }

    @ParameterizedTest
    @MethodSource("messages")
    void kind_ofToolMessage(Op op, String stderr, FaultKind expected) {
        CommandRunner.Result r = new CommandRunner.Result("cmd", 1, "", stderr, false, null);
        assertEquals(expected, FaultMap.kind(op, r));
        TapeFault f = FaultMap.fault(op, "mount X", r);
        assertTrue(f.getMessage().startsWith("mount X: cmd: "), f.getMessage());
        assertTrue(f.getMessage().contains("exit code 1"), f.getMessage());
    }

    /** What {@code sg_raw} prints for a CHECK CONDITION with fixed-format sense (sg3_utils' sense decoding). */
    static String sense(String key, String additional, String keySpecific) {
        return "SCSI Status: Check Condition \n\nSense Information:\nFixed format, current; Sense key: " + key
                + "\nAdditional sense: " + additional + "\n" + (keySpecific == null ? ""
                : "  Sense Key Specific: " + keySpecific + "\n");
    }

    static Stream<Arguments> senses() {
        return Stream.of(
                Arguments.of(sense("Illegal Request", "Invalid command operation code", null), true, true),
                // an unimplemented service action of MAINTENANCE IN/OUT: the field pointer at CDB byte 1
                Arguments.of(sense("Illegal Request", "Invalid field in cdb", "Error in Command: byte 1 bit 4"), true,
                        true),
                Arguments.of(sense("Illegal Request", "Invalid field in cdb", "Error in Command: byte 1"), true, true),
                // any other field, or no pointer: this request only
                Arguments.of(sense("Illegal Request", "Invalid field in cdb", null), true, false),
                Arguments.of(sense("Illegal Request", "Invalid field in cdb", "Error in Command: byte 3 bit 1"), true,
                        false),
                Arguments.of(sense("Illegal Request", "Invalid field in cdb", "Error in Command: byte 10"), true,
                        false),
                Arguments.of(sense("Illegal Request", "Invalid field in cdb", "Error in Data parameters: byte 1"),
                        true, false),
                Arguments.of(sense("Illegal Request", "Parameter list length error", null), true, false),
                Arguments.of(sense("Illegal Request", "Logical unit not supported", null), true, false),
                Arguments.of(sense("Hardware Error", "Internal target failure", null), false, false),
                Arguments.of(sense("Not Ready", "Medium not present", null), false, false),
                Arguments.of("sh: 1: sg_raw: not found", false, false));
    }

    @ParameterizedTest
    @MethodSource("senses")
    void illegalRequestAndLacksCommand_fromTheSense(String stderr, boolean illegal, boolean lacks) {
        CommandRunner.Result r = new CommandRunner.Result("sg_raw", illegal ? (lacks ? 9 : 5) : 1, "", stderr, false,
                null);
        assertEquals(illegal, FaultMap.illegalRequest(r), stderr);
        assertEquals(lacks, FaultMap.lacksCommand(r), stderr);
        assertEquals(lacks, FaultMap.lacksCommand(new CommandRunner.Result("sg_raw", 1, stderr, "", false, null)),
                "on stdout too: " + stderr);
    }
}
