package org.tapeq.scheduler.tape.scsi;

/** {@link ScsiLibraryLabTest} against the mhVTL lab of ../shared/mhvtl ({@code TAPEQ_MHVTL_LAB}). */
class ScsiLibraryMhvtlTest extends ScsiLibraryLabTest {
    ScsiLibraryMhvtlTest() {
        super(Lab.mhvtlLab());
    }
}
