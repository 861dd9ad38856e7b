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
}
