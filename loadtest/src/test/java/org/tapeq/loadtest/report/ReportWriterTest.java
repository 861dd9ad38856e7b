package org.tapeq.loadtest.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import javax.imageio.ImageIO;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.loadtest.run.RequestLog.End;
import org.tapeq.loadtest.run.FileList;
import org.tapeq.loadtest.run.RunRecord;
import org.tapeq.loadtest.run.Target;

class ReportWriterTest {

    @Test
    void write_passedRun_markdownJsonAndFourPlots(@TempDir Path dir) throws IOException {
        RunRecord r = VerdictTest.run(VerdictTest.scenario("{sustainedRate: 900MB/s, window: 60s}"), End.COMPLETED, 10,
                false, VerdictTest.steady(120, 1_000_000_000L));
        Path md = ReportWriter.write(r, dir).markdown();
        String text = Files.readString(md);
        assertTrue(text.startsWith("# tapeq loadtest: dt\n\n**PASSED**"), text);
        assertTrue(text.contains("| flush | 100 | 0 | 0 | 0 | 100.0 GB | 10.0 s | 10.0 s | 10.0 s |"), text);
        assertTrue(text.contains("Mounts per cartridge: TQ0000L9 2."), text);
        for (String png : new String[] {ReportWriter.THROUGHPUT_PNG, ReportWriter.QUEUE_PNG, ReportWriter.MOUNTS_PNG,
                ReportWriter.LATENCY_PNG}) {
            assertTrue(text.contains("](" + png + ")"), png);
            assertEquals(800, ImageIO.read(dir.resolve(png).toFile()).getWidth(), png);
        }
        JsonNode json = new ObjectMapper().readTree(dir.resolve(ReportWriter.JSON).toFile());
        assertTrue(json.get("passed").asBoolean());
        assertEquals(0, json.get("lost").asLong());
        assertEquals(100, json.at("/outcomes/flush/completed").asLong());
        assertEquals(1_000_000_000L, json.get("sustained_rate_bytes_per_s").asLong());
        assertEquals(10.0, json.at("/latency/flush/p99_s").asDouble());
        assertEquals(2, json.at("/mounts_per_cartridge/TQ0000L9").asLong());
        assertEquals(2, json.get("mounts").asLong());
    }

    @Test
    void write_dataTaking_listsTheFilesWritten_andSaysHowTheDrivesWereEmptied(@TempDir Path dir) throws IOException {
        RunRecord r = VerdictTest.run(VerdictTest.scenario("{}"), End.COMPLETED, 10, false, VerdictTest.steady(5, 1));
        List<FileList.Entry> written = List.of(new FileList.Entry("00AB", 1000, "atlas:raw", "/pnfs/a", "03e80001",
                "atlas", 0));
        RunRecord emptied = new RunRecord(r.scenario(), r.target(), r.started(), r.wallNanos(), r.speed(), false, null,
                r.log(), r.samples(), r.mountsPerCartridge(), 0, 0, 0,
                new Target.Emptied(Map.of("drive0", "TQ0001L9"), 1500, true), written, List.of(), 0, null);
        String text = Files.readString(ReportWriter.write(emptied, dir).markdown());
        assertTrue(text.contains("Drives: emptied before the measured phase (TQ0001L9 from drive0) in 1.5 s of wall "
                + "time"), text);
        assertTrue(text.contains("Files written: 1, listed in `files.csv`"), text);
        assertEquals(written, FileList.read(dir));
        JsonNode json = new ObjectMapper().readTree(dir.resolve(ReportWriter.JSON).toFile());
        assertTrue(json.get("drives_emptied").asBoolean());
        assertEquals("TQ0001L9", json.at("/unloaded_before_measuring/drive0").asText());
        assertEquals(1, json.get("files_written").asInt());

        String unknown = Files.readString(ReportWriter.write(r, dir.resolve("unknown")).markdown());
        assertTrue(unknown.contains("Drives: not emptied (the harness cannot for this target"), unknown);
    }

    @Test
    void write_partialRun_saysSo(@TempDir Path dir) throws IOException {
        RunRecord r = VerdictTest.run(VerdictTest.scenario("{}"), End.OUTSTANDING, 0, true, VerdictTest.steady(5, 1));
        String text = Files.readString(ReportWriter.write(r, dir).markdown());
        assertTrue(text.startsWith("# tapeq loadtest: dt (PARTIAL)\n\n**FAILED**"), text);
        assertTrue(text.contains("| complete | every request ended | stopped: stopped by test | **FAIL** |"), text);
        JsonNode json = new ObjectMapper().readTree(dir.resolve(ReportWriter.JSON).toFile());
        assertTrue(json.get("partial").asBoolean());
        assertEquals(1, json.at("/outcomes/flush/outstanding").asLong());
    }
}
