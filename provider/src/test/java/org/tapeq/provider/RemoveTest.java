package org.tapeq.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.tapeq.poolemulator.EmulatedRemoveRequest;
import org.tapeq.poolemulator.Outcome;

class RemoveTest {
    @TempDir
    Path tmp;

    @Test
    void remove_enditUri_writesTrashFileWithTheUri() throws Exception {
        try (Fixture fx = Fixture.start(tmp)) {
            String id = Fixture.newPnfsId().toString();
            URI uri = URI.create("osm://tape1?bfid=" + id);
            EmulatedRemoveRequest remove = fx.pool.newRemove(uri);
            fx.pool.remove(List.of(remove));
            assertTrue(Fixture.outcome(remove).isCompleted());
            assertEquals(uri.toASCIIString(), Files.readString(fx.dir.trashFile(id), StandardCharsets.US_ASCII));
            assertEquals(List.of(id), fx.list("trash"), "written atomically: no temporary file left");
        }
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @CsvSource(delimiter = '|', value = {
        "osm://tape1|URI lacks query part",
        "osm://tape1?store=atlas&group=raw|Query part lacks bfid parameter",
        "osm://tape1?bfid=../../etc/passwd|is not a pnfsid",
        "osm://tape1?bfid=|is not a pnfsid",
        "osm://tape1?bfid=00AA&bfid=00BB|more than one bfid",
    })
    void remove_malformedUri_failsNamingTheProblem(String uri, String reason) throws Exception {
        try (Fixture fx = Fixture.start(tmp)) {
            EmulatedRemoveRequest remove = fx.pool.newRemove(URI.create(uri));
            fx.pool.remove(List.of(remove));
            Outcome outcome = Fixture.outcome(remove);
            assertInstanceOf(IllegalArgumentException.class, outcome.exception(), outcome.toString());
            assertTrue(outcome.message().contains(reason), outcome.message());
            assertEquals(List.of(), fx.list("trash"));
        }
    }
}
