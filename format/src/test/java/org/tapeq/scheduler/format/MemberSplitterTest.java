package org.tapeq.scheduler.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.tape.StageFiles;

/** What a read from a size-only library leaves: files of the members' lengths, made once. */
class MemberSplitterTest {

    @TempDir
    Path dir;

    @Test
    void assumeDelivered_sizeOnlyRead_filesOfTheirLengthWithoutChecksum_onlyTheFirstCallCounts() throws IOException {
        List<StageFiles.Member> members = List.of(
                new StageFiles.Member(dir.resolve("a"), 0, 3_000, null),
                new StageFiles.Member(null, 3_500, 100, null),
                new StageFiles.Member(dir.resolve("b"), 4_000, 7_000, null),
                new StageFiles.Member(dir.resolve("c"), 11_000, 500, null));
        List<Integer> opened = new ArrayList<>();
        MemberSplitter split = new MemberSplitter(members, i -> {
            opened.add(i);
            return FileChannel.open(members.get(i).target(), StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING);
        }, false);

        split.assumeDelivered(11_000); // up to the end of b; c is beyond what was read
        assertEquals(3_000, Files.size(dir.resolve("a")));
        assertEquals(7_000, Files.size(dir.resolve("b")));
        assertFalse(Files.exists(dir.resolve("c")), "c lies beyond the bytes read");
        assertEquals(List.of(0, 2), opened, "the member without a file is counted, not opened");
        assertEquals(100, split.written(1));
        assertEquals(0, split.written(3));
        assertNull(split.checksum(0), "no bytes arrived: no checksum");

        Files.writeString(dir.resolve("a"), "changed after");
        split.assumeDelivered(11_500); // the pass's own call after the library's copy thread made them
        assertEquals(List.of(0, 2), opened, "a second call opens nothing");
        assertEquals("changed after", Files.readString(dir.resolve("a")), "a second call truncates nothing");
        assertFalse(Files.exists(dir.resolve("c")));
        assertEquals(0, split.written(3));
        split.close();
        assertEquals(0, split.delivered());
    }

    @Test
    void assumeDelivered_targetCannotBeOpened_failsOnlyThatMemberNamingIt() throws IOException {
        Path missing = dir.resolve("no-such-dir").resolve("x");
        List<StageFiles.Member> members = List.of(
                new StageFiles.Member(missing, 0, 10, null),
                new StageFiles.Member(dir.resolve("y"), 10, 20, null));
        MemberSplitter split = new MemberSplitter(members, i -> FileChannel.open(members.get(i).target(),
                StandardOpenOption.CREATE, StandardOpenOption.WRITE), false);
        split.assumeDelivered(30);
        assertTrue(split.error(0).contains(missing.toString()), split.error(0));
        assertNull(split.error(1));
        assertEquals(20, Files.size(dir.resolve("y")));
    }
}
