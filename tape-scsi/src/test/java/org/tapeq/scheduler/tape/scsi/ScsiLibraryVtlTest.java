package org.tapeq.scheduler.tape.scsi;

/** {@link ScsiLibraryLabTest} against the tgt lab of ../shared/vtl ({@code TAPEQ_VTL_LAB}). */
class ScsiLibraryVtlTest extends ScsiLibraryLabTest {
    ScsiLibraryVtlTest() {
        super(Lab.tgtLab());
    }
}
