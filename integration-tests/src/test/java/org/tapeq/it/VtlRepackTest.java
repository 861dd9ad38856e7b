package org.tapeq.it;

/** {@link LabRepackTest} against the tgt lab of ../shared/vtl ({@code TAPEQ_VTL_LAB}). */
class VtlRepackTest extends LabRepackTest {
    VtlRepackTest() {
        super(Lab.TGT);
    }
}
