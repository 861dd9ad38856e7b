package org.tapeq.provider;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.poolemulator.EmulatedFlushRequest;
import org.tapeq.poolemulator.EmulatedStageRequest;
import org.tapeq.poolemulator.Outcome;
import org.tapeq.protocol.ReturnCodes;

/**
 * Issue 18: a subdirectory of the request directory renamed and replaced by a symbolic link to a directory
 * elsewhere while the pool runs. The provider reads and writes nothing there, and fails its requests naming
 * what changed.
 */
class SwappedDirectoryTest {
    @TempDir
    Path tmp;

    private Path swapForLink(Fixture fx, String sub) throws Exception {
        Path outside = Files.createDirectories(tmp.resolve("outside"));
        Files.move(fx.base.resolve(sub), fx.base.resolve(sub + ".real"));
        Files.createSymbolicLink(fx.base.resolve(sub), outside);
        return outside;
    }

    private static List<String> names(Path dir) throws Exception {
        try (var s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList());
        }
    }

    /**
     * The swap is two steps (rename away, then link), as it would be on a real host; a scan that runs between
     * them finds the directory gone, one after them finds the link. Either is the true reason, and the first
     * one seen is the one reported.
     */
    private static void assertStopped(Outcome outcome, Path sub) {
        assertTrue(outcome.isFailed(), outcome.toString());
        assertEquals(ReturnCodes.FAILED, outcome.returnCode(), outcome.toString());
        String served = "is no longer served: " + sub;
        assertTrue(outcome.message().contains(served + " is now a symbolic link")
                || outcome.message().contains(served + " is gone (it was renamed or removed)"),
                outcome.message());
    }

    @Test
    void inSwappedForALink_aFileThereIsNeverTakenIntoThePool() throws Exception {
        try (Fixture fx = Fixture.start(tmp, "graceperiod=0")) {
            byte[] content = Fixture.randomBytes(2000);
            EmulatedStageRequest stage = fx.newStage(content, "/a/b");
            Path outside = swapForLink(fx, "in");
            byte[] planted = Fixture.randomBytes(2000);
            Files.write(outside.resolve(stage.pnfsId().toString()), planted);

            fx.pool.stage(List.of(stage));
            fx.settle();
            fx.storage.rescanNow();
            Outcome outcome = Fixture.outcome(stage);

            assertStopped(outcome, fx.base.resolve("in"));
            assertArrayEquals(planted, Files.readAllBytes(outside.resolve(stage.pnfsId().toString())),
                    "the file there is left alone");
            assertFalse(Files.exists(fx.pool.replicaPath(stage.pnfsId())), "nothing moved into the pool");
        }
    }

    @Test
    void requestSwappedForALink_noRequestWrittenThere_andNoErrorFileReadFromThere() throws Exception {
        try (Fixture fx = Fixture.start(tmp)) {
            EmulatedStageRequest stage = fx.newStage(Fixture.randomBytes(100), "/a/b");
            String id = stage.pnfsId().toString();
            Path outside = swapForLink(fx, "request");
            Files.write(outside.resolve(id + ".err"), "33\nplanted\n".getBytes(StandardCharsets.US_ASCII));

            fx.pool.stage(List.of(stage));
            fx.settle();
            fx.storage.rescanNow();
            Outcome outcome = Fixture.outcome(stage);

            assertStopped(outcome, fx.base.resolve("request"));
            assertEquals(List.of(id + ".err"), names(outside), "no request file written there");
        }
    }

    @Test
    void outSwappedForALink_noLinkIsMadeThere() throws Exception {
        try (Fixture fx = Fixture.start(tmp)) {
            EmulatedFlushRequest flush = fx.newFlush(Fixture.randomBytes(300), "/a/b");
            Path outside = swapForLink(fx, "out");

            fx.pool.flush(List.of(flush));
            fx.settle();
            fx.storage.rescanNow();
            Outcome outcome = Fixture.outcome(flush);

            assertStopped(outcome, fx.base.resolve("out"));
            assertEquals(List.of(), names(outside), "no link made there");
        }
    }
}
