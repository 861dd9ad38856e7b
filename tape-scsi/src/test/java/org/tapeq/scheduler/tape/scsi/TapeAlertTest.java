package org.tapeq.scheduler.tape.scsi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;

import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.model.FaultKind;

/** What tapeq does about a TapeAlert reading: every class of flag set gets its reaction. */
class TapeAlertTest {

    private static TapeAlert.Reaction react(Integer... flags) {
        return new TapeAlert(Set.of(flags)).react("op");
    }

    @Test
    void react_mediaAndCleanNow_bothReactionsHappen() {
        TapeAlert.Reaction r = react(0x04, 0x14);
        assertEquals(FaultKind.CLEANING, r.fault().kind(), "the drive goes out");
        assertEquals(Set.of(0x04), r.media().flags(), "and the cartridge is suspect");
        assertTrue(r.periodic().isEmpty());
    }

    @Test
    void react_cleanNowAndHardware_cleaningFaultNamesBoth() {
        TapeAlert.Reaction r = react(0x14, 0x1E);
        assertEquals(FaultKind.CLEANING, r.fault().kind());
        assertTrue(r.fault().getMessage().contains("0x1e hardware A"), r.fault().getMessage());
    }

    @Test
    void react_hardwareAndMedia_driveFaultAndSuspect() {
        TapeAlert.Reaction r = react(0x1E, 0x05);
        assertEquals(FaultKind.DRIVE, r.fault().kind());
        assertEquals(Set.of(0x05), r.media().flags());
    }

    @Test
    void react_mediaOnly_noFaultButSuspect() {
        TapeAlert.Reaction r = react(0x06);
        assertNull(r.fault());
        assertEquals(Set.of(0x06), r.media().flags());
    }

    @Test
    void react_cleanPeriodic_noFaultTheDriveStaysInService() {
        TapeAlert.Reaction r = react(0x15);
        assertNull(r.fault(), "0x15 does not take the drive out");
        assertEquals(Set.of(0x15), r.periodic().flags());
        assertTrue(r.media().isEmpty());
    }

    @Test
    void react_cleanNowAndPeriodic_outAndReported() {
        TapeAlert.Reaction r = react(0x14, 0x15);
        assertEquals(FaultKind.CLEANING, r.fault().kind());
        assertEquals(Set.of(0x15), r.periodic().flags());
    }

    @Test
    void react_warningsOnly_nothing() {
        TapeAlert.Reaction r = react(0x01, 0x03);
        assertNull(r.fault());
        assertTrue(r.media().isEmpty());
        assertTrue(r.periodic().isEmpty());
    }
}
