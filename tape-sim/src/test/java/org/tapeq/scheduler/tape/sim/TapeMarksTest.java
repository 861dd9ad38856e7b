package org.tapeq.scheduler.tape.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.TapeFileSource;
import org.tapeq.scheduler.tape.WrittenFile;
import org.tapeq.scheduler.time.VirtualEventLoop;

/** Synchronous against buffered tape marks: what the appends of one mount cost in loop time. */
class TapeMarksTest {

    private static final long MARK = SimulatedLibrary.DEFAULT_FILEMARK_MILLIS;

    private static long appendMillis(TapeMarks marks, int files, long fileBytes) throws IOException {
        VirtualEventLoop loop = new VirtualEventLoop(0);
        SimHarness h = new SimHarness(loop, SimulatedLibrary.builder(loop).sizeOnly().drives(1).tapeMarks(marks)
                .cartridges("A", 1, MediaType.LTO9).build());
        h.mount("drive0", "A00000L9");
        long start = loop.now();
        for (int i = 0; i < files; i++) {
            h.append("drive0", SimHarness.size(fileBytes));
        }
        return loop.now() - start;
    }

    @Test
    void synchronous_everyTapeFilePaysTheFlush() throws IOException {
        long streaming = appendMillis(TapeMarks.synchronous(0), 50, 100 * SimHarness.MB);
        assertEquals(streaming + 50 * MARK, appendMillis(TapeMarks.synchronous(MARK), 50, 100 * SimHarness.MB));
    }

    @Test
    void buffered_aFlushAtTheFileLimit() throws IOException {
        long streaming = appendMillis(TapeMarks.synchronous(0), 450, 100 * SimHarness.MB);
        // 450 files of 100 MB, flushed at the 200th and 400th file (45 GB in all, each flush before 32 GB)
        assertEquals(streaming + 2 * MARK,
                appendMillis(TapeMarks.buffered(MARK, 200, 32 * SimHarness.GB), 450, 100 * SimHarness.MB));
    }

    @Test
    void buffered_aFlushAtTheByteLimit() throws IOException {
        long streaming = appendMillis(TapeMarks.synchronous(0), 10, 10 * SimHarness.GB);
        // 10 files of 10 GB: 32 GB reached at the 4th and 8th file
        assertEquals(streaming + 2 * MARK,
                appendMillis(TapeMarks.buffered(MARK, 200, 32 * SimHarness.GB), 10, 10 * SimHarness.GB));
    }

    /** Loop time of one good append of 3 bytes after an append whose source failed, on a drive writing bytes. */
    private static long appendAfterFailedMillis(TapeMarks marks, Path dir) throws IOException {
        VirtualEventLoop loop = new VirtualEventLoop(0);
        SimHarness h = new SimHarness(loop, SimulatedLibrary.builder(loop).bytes(dir).drives(1).tapeMarks(marks)
                .cartridges("A", 1, MediaType.LTO9).build());
        h.mount("drive0", "A00000L9");
        TapeFileSource failing = new TapeFileSource() {
            @Override
            public long length() {
                return 10_000;
            }

            @Override
            public void writeTo(OutputStream out) throws IOException {
                out.write(new byte[5000]);
                throw new IOException("disk pool file vanished");
            }
        };
        h.run((Completion<WrittenFile> c) -> h.library.append("drive0", failing, c)).fault(FaultKind.SOURCE);
        long start = loop.now();
        h.append("drive0", SimHarness.bytes(new byte[3]));
        return loop.now() - start;
    }

    @Test
    void buffered_aFailedAppendDoesNotCountTowardTheFlush(@TempDir Path a, @TempDir Path b) throws IOException {
        // flush every 2nd tape file: the failed append is no tape file, so the good one after it is the 1st
        assertEquals(appendAfterFailedMillis(TapeMarks.synchronous(0), a),
                appendAfterFailedMillis(TapeMarks.buffered(MARK, 2, 32 * SimHarness.GB), b));
    }

    @Test
    void limits_halfSetOrNegative_areRefused() {
        assertThrows(IllegalArgumentException.class, () -> new TapeMarks(MARK, 200, 0));
        assertThrows(IllegalArgumentException.class, () -> TapeMarks.buffered(MARK, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> TapeMarks.synchronous(-1));
    }
}
