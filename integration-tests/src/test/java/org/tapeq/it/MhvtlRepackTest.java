package org.tapeq.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link LabRepackTest} against the mhVTL lab of ../shared/mhvtl ({@code TAPEQ_MHVTL_LAB}). The tape-scsi module's
 * library test takes the lab's last three cartridges (its blank last one, a scratch and one more), the end-to-end
 * test 1-5, so cartridges 6 and 7 are free for this test only when the lab has at least 10
 * ({@code MHVTL_TAPES=10}, {@code TAPEQ_MHVTL_TAPES=10} in .ci/run).
 */
class MhvtlRepackTest extends LabRepackTest {

    /** Cartridges the lab needs: 1-5 end-to-end, 6-7 repack, the last three the tape-scsi test's. */
    static final int TAPES_NEEDED = 10;

    MhvtlRepackTest() {
        super(Lab.MHVTL);
    }

    @Override
    void checkCartridges() {
        String tapes = System.getenv().getOrDefault("TAPEQ_MHVTL_TAPES", "0");
        assertTrue(Integer.parseInt(tapes) >= TAPES_NEEDED, "the mhVTL lab has " + tapes + " cartridges"
                + " (TAPEQ_MHVTL_TAPES), the repack test needs " + TAPES_NEEDED + ": cartridges " + SOURCE + " and "
                + TARGET + " must not be among the last three, which the tape-scsi test uses; start the lab with"
                + " MHVTL_TAPES=" + TAPES_NEEDED);
    }
}
