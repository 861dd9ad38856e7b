package org.tapeq.it;

/** {@link LabEndToEndTest} against the mhVTL lab of ../shared/mhvtl ({@code TAPEQ_MHVTL_LAB}). */
class MhvtlEndToEndTest extends LabEndToEndTest {
    MhvtlEndToEndTest() {
        super(Lab.MHVTL);
    }
}
