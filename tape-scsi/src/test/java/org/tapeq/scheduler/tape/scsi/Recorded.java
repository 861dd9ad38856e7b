package org.tapeq.scheduler.tape.scsi;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * Command outputs kept as test resources, each directory saying where its files come from: {@code lab/} (mtx and
 * mt on the tgt lab), {@code mhvtl/} (sg3_utils on the mhVTL lab), {@code spec/} (built from the SCSI reference).
 */
final class Recorded {

    private Recorded() {
    }

    /** The resource {@code name} (e.g. {@code lab/mtx-status.txt}) as UTF-8 text. */
    static String text(String name) {
        try (InputStream in = Recorded.class.getResourceAsStream("/" + name)) {
            if (in == null) {
                throw new IllegalStateException("no test resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("reading test resource " + name, e);
        }
    }
}
