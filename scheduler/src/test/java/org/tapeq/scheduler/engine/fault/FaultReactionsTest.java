package org.tapeq.scheduler.engine.fault;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.tapeq.protocol.ReturnCodes;
import org.tapeq.scheduler.engine.fault.FaultReactions.Cartridge;
import org.tapeq.scheduler.engine.fault.FaultReactions.Operation;
import org.tapeq.scheduler.engine.fault.FaultReactions.Reaction;
import org.tapeq.scheduler.engine.fault.FaultReactions.Requests;
import org.tapeq.scheduler.engine.fault.FaultReactions.Then;
import org.tapeq.scheduler.model.FaultKind;

class FaultReactionsTest {

    private static final Path DOC = Path.of("../docs/scheduler.md");

    @Test
    void table_isWhatTheSchedulerDocPrints() throws IOException {
        String doc = Files.readString(DOC);
        assertTrue(doc.contains(FaultReactions.table()),
                "docs/scheduler.md (\"Faults\") must print FaultReactions.table() verbatim:\n"
                        + FaultReactions.table());
    }

    @Test
    void of_driveErrorWhileReading_countsItAndUnloadsForAnotherDrive() {
        Reaction r = FaultReactions.of(Operation.READ, FaultKind.DRIVE);
        assertTrue(r.driveError());
        assertFalse(r.robotError());
        assertEquals(Requests.RETRY, r.requests());
        assertEquals(Then.UNLOAD_AVOID, r.then());
    }

    @Test
    void of_cleaningRequired_takesTheDriveOutAtOnceWhateverTheOperation() {
        for (Operation op : List.of(Operation.MOUNT, Operation.LABEL_CHECK, Operation.READ, Operation.WRITE)) {
            Reaction r = FaultReactions.of(op, FaultKind.CLEANING);
            Reaction drive = FaultReactions.of(op, FaultKind.DRIVE);
            assertTrue(r.driveOut(), op.toString());
            assertFalse(drive.driveOut(), op.toString());
            assertEquals(drive.requests(), r.requests(), op + ": the requests fare as after a drive error");
            assertEquals(drive.then(), r.then(), op.toString());
        }
        assertTrue(FaultReactions.takesDriveOut(FaultKind.CLEANING));
        assertFalse(FaultReactions.takesDriveOut(FaultKind.DRIVE));
    }

    @Test
    void of_mediaErrorWhileReading_marksTheCartridgeSuspectAndGoesOn() {
        Reaction r = FaultReactions.of(Operation.READ, FaultKind.MEDIA);
        assertEquals(Cartridge.SUSPECT, r.cartridge());
        assertEquals(Requests.RETRY, r.requests());
        assertEquals(Then.GO_ON, r.then());
    }

    @Test
    void of_notFoundOrSource_failsAtOnceWhereverItHappens() {
        for (Operation op : new Operation[] {Operation.MOUNT, Operation.LABEL_CHECK, Operation.READ,
                Operation.DELIVER}) {
            assertEquals(Requests.FAIL, FaultReactions.of(op, FaultKind.NOT_FOUND).requests(), op.name());
            assertEquals(Requests.FAIL, FaultReactions.of(op, FaultKind.SOURCE).requests(), op.name());
        }
        assertEquals(Requests.FAIL, FaultReactions.of(Operation.WRITE, FaultKind.NOT_FOUND).requests());
    }

    @Test
    void of_tapeFullWhileWriting_closesTheCartridgeWithoutCountingAnAttempt() {
        Reaction r = FaultReactions.of(Operation.WRITE, FaultKind.TAPE_FULL);
        assertEquals(Cartridge.FULL, r.cartridge());
        assertEquals(Requests.RETRY_UNCOUNTED, r.requests());
    }

    @Test
    void of_sourceChangedWhileWriting_checksTheMembersAgain() {
        assertEquals(Requests.RECHECK, FaultReactions.of(Operation.WRITE, FaultKind.SOURCE).requests());
    }

    @Test
    void of_robotErrorOnMountOrUnload_countsTowardsThePause() {
        Reaction mount = FaultReactions.of(Operation.MOUNT, FaultKind.ROBOT);
        assertTrue(mount.robotError());
        assertEquals(Then.REFILE_AFTER_BACKOFF, mount.then());
        Reaction unload = FaultReactions.of(Operation.UNMOUNT, FaultKind.ROBOT);
        assertTrue(unload.robotError());
        assertEquals(Then.RETRY_UNLOAD, unload.then());
        assertFalse(FaultReactions.of(Operation.READ, FaultKind.ROBOT).robotError());
    }

    @Test
    void of_otherUnloadFailure_takesTheDriveDown() {
        assertEquals(Then.TAKE_DOWN, FaultReactions.of(Operation.UNMOUNT, FaultKind.DRIVE).then());
    }

    @Test
    void of_badLabel_marksTheCartridgeAndUnloadsWithoutDriveError() {
        Reaction r = FaultReactions.of(Operation.LABEL_CHECK, FaultKind.LABEL);
        assertEquals(Cartridge.BLANK_OR_FOREIGN, r.cartridge());
        assertFalse(r.driveError());
        assertEquals(Then.UNLOAD, r.then());
    }

    @Test
    void of_targetNotWritable_failsTheMemberAtOnce() {
        assertEquals(Requests.FAIL, FaultReactions.of(Operation.DELIVER, FaultKind.TARGET).requests());
        assertEquals(Requests.RETRY, FaultReactions.of(Operation.DELIVER, FaultKind.CHECKSUM).requests());
    }

    @Test
    void returnCode_neverDisablesThePool() {
        for (FaultKind kind : FaultKind.values()) {
            int rc = FaultReactions.returnCode(kind);
            assertTrue(rc < 41 || rc > 43, kind + " -> " + rc);
        }
        assertEquals(ReturnCodes.DATA_MISMATCH, FaultReactions.returnCode(FaultKind.CHECKSUM));
        assertEquals(ReturnCodes.NOT_ON_TAPE, FaultReactions.returnCode(FaultKind.MEDIA));
        assertEquals(ReturnCodes.FAILED, FaultReactions.returnCode(FaultKind.DRIVE));
    }
}
