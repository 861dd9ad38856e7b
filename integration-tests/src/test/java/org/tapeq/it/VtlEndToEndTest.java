package org.tapeq.it;

/** {@link LabEndToEndTest} against the tgt lab of ../shared/vtl ({@code TAPEQ_VTL_LAB}). */
class VtlEndToEndTest extends LabEndToEndTest {
    VtlEndToEndTest() {
        super(Lab.TGT);
    }
}
