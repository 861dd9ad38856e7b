package org.tapeq.loadtest.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.tapeq.config.ConfigException;

class FileListTest {

    private static final String HEADER = "pnfsid,size,storage_class,path,adler32,experiment,dataset";
    /** A good line: 1000 zero bytes have the Adler-32 03e80001. */
    private static final String LINE = "000000000B000000000000001,1000,atlas:raw,"
            + "/pnfs/loadtest/atlas/dt/dataset000/file0000001,03e80001,atlas,0";

    @TempDir
    Path dir;

    @Test
    void write_thenRead_sameEntries_fromTheFileOrItsFolder() throws IOException {
        List<FileList.Entry> entries = List.of(
                FileList.Entry.of(new PlannedFile("00000000000B000000000001", 2_000_000, "atlas:raw",
                        "/pnfs/loadtest/atlas/dt/dataset000/file0000001", 0, 0, 0), "atlas"),
                FileList.Entry.of(new PlannedFile("00000000000B000000000002", 1, "atlas:raw",
                        "/pnfs/loadtest/atlas/dt/dataset001/file0000002", 0, 1, 5000), "atlas"));
        FileList.write(dir.resolve(FileList.NAME), entries);
        assertEquals(entries, FileList.read(dir.resolve(FileList.NAME)));
        assertEquals(entries, FileList.read(dir));
        assertEquals(HEADER, Files.readAllLines(dir.resolve(FileList.NAME)).get(0));
        assertEquals("86420001", entries.get(0).adler32(), "the Adler-32 of 2 000 000 zero bytes");
    }

    @Test
    void read_columnsInAnotherOrder_andABlankLine_areRead() throws IOException {
        Path file = Files.writeString(dir.resolve("mine.csv"),
                "dataset,experiment,adler32,path,storage_class,size,pnfsid\n\n"
                        + "3,cms,03E80001,/pnfs/x,cms:raw,1000,00AB\n");
        assertEquals(List.of(new FileList.Entry("00AB", 1000, "cms:raw", "/pnfs/x", "03e80001", "cms", 3)),
                FileList.read(file));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "|empty; expected the header " + HEADER,
        HEADER + "\\n|lists no files (only the header)",
        HEADER + ",owner\\n" + LINE + ",me|line 1: unknown column \"owner\"",
        "pnfsid,size,storage_class,path,adler32,experiment\\n|line 1: column dataset is missing",
        HEADER + ",size\\n|line 1: column size is named twice",
        HEADER + "\\n" + LINE + ",extra|line 2: 8 fields, not 7 (a value with a comma is not supported)",
        HEADER + "\\nxyz,1000,atlas:raw,/p,03e80001,atlas,0|line 2: pnfsid \"xyz\" is not a pnfsid",
        HEADER + "\\n00AB,-5,atlas:raw,/p,03e80001,atlas,0|line 2: size \"-5\" is not a whole number 0 or more",
        HEADER + "\\n00AB,1000,,/p,03e80001,atlas,0|line 2: storage_class is empty",
        HEADER + "\\n00AB,1000,atlas:raw,p,03e80001,atlas,0|line 2: path \"p\" is not an absolute dCache path",
        HEADER + "\\n00AB,1000,atlas:raw,/p,12345678,atlas,0|line 2: adler32 \"12345678\" is not that of 1000 zero bytes"
                + " (03e80001)",
        HEADER + "\\n00AB,1000,atlas:raw,/p,03e80001,,0|line 2: experiment is empty",
        HEADER + "\\n00AB,1000,atlas:raw,/p,03e80001,atlas,x|line 2: dataset \"x\" is not a whole number",
        HEADER + "\\n" + LINE + "\\n" + LINE + "|line 3: pnfsid 000000000B000000000000001 is listed twice (first on line 2)",
    })
    void read_badList_namesFileLineAndReason(String text, String expected) throws IOException {
        Path file = Files.writeString(dir.resolve("files.csv"), text == null ? "" : text.replace("\\n", "\n"));
        ConfigException e = assertThrows(ConfigException.class, () -> FileList.read(file));
        assertTrue(e.getMessage().startsWith(file + ": " + expected), e.getMessage());
    }

    @Test
    void read_missingList_namesTheFileAndWhatToGive() {
        ConfigException inFolder = assertThrows(ConfigException.class, () -> FileList.read(dir));
        assertEquals(dir.resolve(FileList.NAME) + ": no such file (give the report folder of a dt run, or its "
                + "files.csv)", inFolder.getMessage());
        Path missing = dir.resolve("nowhere/files.csv");
        assertTrue(assertThrows(ConfigException.class, () -> FileList.read(missing)).getMessage()
                .startsWith(missing + ": no such file"));
    }
}
