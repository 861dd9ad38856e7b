package org.tapeq.protocol;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import org.junit.jupiter.api.BeforeAll;
import org.tapeq.fuzz.Fuzz;

/**
 * Coverage-guided fuzzing of request files with Jazzer (docs/testing.md, "Fuzzing"): the same checks as the mutation
 * fuzzer, on inputs that Jazzer steers by the code they reach. Compiled only in the {@code fuzz-jazzer} profile; it
 * fuzzes only with {@code JAZZER_FUZZ=1} and only as the one fuzz test of its JVM.
 */
class RequestFileJazzerTest {
    @BeforeAll
    static void seeds() throws IOException {
        Fuzz.seedJazzerCorpus(RequestFileJazzerTest.class, "requestFile", ProtocolFuzzTest.REQUEST_FILES.seeds());
    }

    @FuzzTest(maxExecutions = 10_000_000, maxDuration = "48h")
    void requestFile(byte[] input) throws ProtocolException {
        ProtocolFuzzTest.checkRequestFile(input);
    }
}
