package org.tapeq.daemon.cli;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** {@code tapeq status} as text: what an operator reads first. */
class StatusTextTest {

    private static String print(String json) throws Exception {
        JsonNode status = new ObjectMapper().readTree(json);
        StringWriter out = new StringWriter();
        try (PrintWriter w = new PrintWriter(out)) {
            StatusText.print(status, w);
        }
        return out.toString();
    }

    @Test
    void catalogUnreachable_isShownWithSinceWhenAndWhy() throws Exception {
        String text = print("{\"version\":\"1\",\"startedMillis\":0,\"nowMillis\":125000,\"catalog\":"
                + "{\"reachable\":false,\"unreachableSince\":5000,\"reason\":\"connection refused\"}}");
        assertTrue(text.contains("catalog: UNREACHABLE for 2 min"), text);
        assertTrue(text.contains("connection refused"), text);
        assertTrue(text.contains("no writes"), text);
    }

    @Test
    void catalogReachable_isOneLine() throws Exception {
        String text = print("{\"version\":\"1\",\"startedMillis\":0,\"nowMillis\":1000,\"catalog\":"
                + "{\"reachable\":true,\"unreachableSince\":0,\"reason\":null}}");
        assertTrue(text.contains("catalog: reachable"), text);
    }

    @Test
    void site_standbyNamesTheHolder_activeShowsItsEpoch() throws Exception {
        String standby = print("{\"version\":\"1\",\"startedMillis\":0,\"nowMillis\":1000,\"site\":{\"name\":"
                + "\"gridka\",\"role\":\"standby\",\"epoch\":0,\"waiting\":\"standby, lease held by tape1 pid 42 "
                + "(epoch 3)\"}}");
        assertTrue(standby.contains("site gridka: standby (standby, lease held by tape1 pid 42 (epoch 3))"), standby);
        String active = print("{\"version\":\"1\",\"startedMillis\":0,\"nowMillis\":1000,\"site\":{\"name\":"
                + "\"gridka\",\"role\":\"active\",\"epoch\":4,\"waiting\":null}}");
        assertTrue(active.contains("site gridka: active, lease epoch 4"), active);
    }

    @Test
    void verification_showsProgressAndNamesEachBadAndUnreadableFile() throws Exception {
        String text = print("{\"version\":\"1\",\"startedMillis\":0,\"nowMillis\":1000,\"scheduler\":{"
                + "\"policy\":\"tapeq\",\"background\":{\"waiting\":0,\"running\":1,\"maxDrives\":1},"
                + "\"verifications\":[{\"barcode\":\"A00042L9\",\"state\":\"running\",\"aggregatesDone\":37,"
                + "\"aggregatesTotal\":412,\"sampled\":false,\"filesGood\":1479,\"filesUnchecked\":1,"
                + "\"filesBad\":1,\"filesUnreadable\":13,\"bad\":[{\"pnfsid\":\"P1\",\"tapeFile\":12,"
                + "\"reason\":\"read adler32:1, the catalog has adler32:2\"}],"
                + "\"unreadable\":[{\"pnfsid\":\"P2\",\"tapeFile\":14,\"reason\":\"media error\"}],"
                + "\"error\":null}]}}");
        assertTrue(text.contains("background: 1 running (of at most 1 drives), 0 waiting for a drive"), text);
        // the file whose checksum could not be compared is not counted good
        assertTrue(text.contains("verify A00042L9 running 37/412 aggregates: 1479 good, 1 unchecked, 1 bad, 13"
                + " unreadable"), text);
        assertTrue(text.contains("and 12 more: in the log"), text);
        assertTrue(text.contains("BAD P1 (tape file 12): read adler32:1, the catalog has adler32:2"), text);
        assertTrue(text.contains("UNREADABLE P2 (tape file 14): media error"), text);
    }

    @Test
    void repack_showsProgressTargetAndEachFileThatStays() throws Exception {
        String text = print("{\"version\":\"1\",\"startedMillis\":0,\"nowMillis\":1000,\"scheduler\":{"
                + "\"policy\":\"tapeq\",\"background\":{\"waiting\":0,\"running\":1,\"maxDrives\":1},"
                + "\"verifications\":[],\"repacks\":[{\"source\":\"A00042L9\",\"targetFamily\":\"atlas\","
                + "\"state\":\"writing\",\"target\":\"A00050L9\",\"filesTotal\":500,\"bytesTotal\":5000000000,"
                + "\"filesDone\":120,\"bytesDone\":1200000000,\"filesFailed\":3,\"spooledFiles\":40,"
                + "\"spooledBytes\":400000000,\"failed\":[{\"pnfsid\":\"P1\",\"tapeFile\":12,"
                + "\"reason\":\"not read from A00042L9 tape file 12: media error\"}],\"emptied\":false,"
                + "\"started\":0,\"ended\":0,\"error\":null}]}}");
        assertTrue(text.contains("repack A00042L9 -> atlas writing   120/500 files"), text);
        assertTrue(text.contains("3 failed, 40 in the spool writing to A00050L9"), text);
        assertTrue(text.contains("STAYS P1 (tape file 12): not read from A00042L9 tape file 12: media error"), text);
        assertTrue(text.contains("and 2 more: in the log"), text);
    }

    @Test
    void repack_waitingForATarget_countedOnTheBackgroundLine() throws Exception {
        String text = print("{\"version\":\"1\",\"startedMillis\":0,\"nowMillis\":1000,\"scheduler\":{"
                + "\"policy\":\"tapeq\",\"now\":1000000,\"background\":{\"waiting\":0,\"running\":1,"
                + "\"maxDrives\":2},\"verifications\":[],\"repacks\":[{\"source\":\"A00042L8\","
                + "\"targetFamily\":\"atlas\",\"state\":\"waiting for a target\",\"target\":null,"
                + "\"filesTotal\":500,\"bytesTotal\":5000000000,\"filesDone\":0,\"bytesDone\":0,"
                + "\"filesFailed\":0,\"spooledFiles\":40,\"spooledBytes\":400000000,\"failed\":[],"
                + "\"emptied\":false,\"started\":400000,\"ended\":0,\"error\":null}]}}");
        assertTrue(text.contains("background: 1 running (of at most 2 drives), 0 waiting for a drive, 1 repacks"
                + " waiting for a target"), text);
    }

    @Test
    void repack_showsItsRateSinceItWasAskedFor() throws Exception {
        String text = print("{\"version\":\"1\",\"startedMillis\":0,\"nowMillis\":1000,\"scheduler\":{"
                + "\"policy\":\"tapeq\",\"now\":1000000,\"background\":{\"waiting\":0,\"running\":1,"
                + "\"maxDrives\":1},\"verifications\":[],\"repacks\":[{\"source\":\"A00042L9\","
                + "\"targetFamily\":\"atlas\",\"state\":\"writing\",\"target\":\"A00050L9\","
                + "\"filesTotal\":500,\"bytesTotal\":5000000000,\"filesDone\":120,\"bytesDone\":1200000000,"
                + "\"filesFailed\":0,\"spooledFiles\":0,\"spooledBytes\":0,\"failed\":[],\"emptied\":false,"
                + "\"started\":400000,\"ended\":0,\"error\":null}]}}");
        // 1.2 GB in the 600 s since it was asked for
        assertTrue(text.contains("1.2 GB/5.0 GB moved, 2.0 MB/s since asked for, 0 failed"), text);
    }

    @Test
    void migration_namesTheCartridgeMovedNowWithItsProgress_andTheEstimatedEnd() throws Exception {
        String text = print("{\"version\":\"1\",\"startedMillis\":0,\"nowMillis\":1000,\"scheduler\":{"
                + "\"policy\":\"tapeq\",\"now\":3600000,\"background\":{\"waiting\":0,\"running\":1,"
                + "\"maxDrives\":1},\"verifications\":[],\"repacks\":["
                + "{\"source\":\"A00040L8\",\"targetFamily\":\"atlas\",\"state\":\"done\",\"filesTotal\":9,"
                + "\"bytesTotal\":9000000000,\"filesDone\":9,\"bytesDone\":9000000000,\"started\":1,"
                + "\"ended\":1800000,\"emptied\":true},"
                + "{\"source\":\"A00041L8\",\"targetFamily\":\"atlas\",\"state\":\"writing\","
                + "\"target\":\"B00001L9\",\"filesTotal\":10,\"bytesTotal\":5000000000,\"filesDone\":3,"
                + "\"bytesDone\":1200000000,\"started\":1800000,\"ended\":0,\"emptied\":false}],"
                + "\"migrations\":[{\"id\":\"L8-L9-1\",\"fromMedia\":\"LTO-8\",\"toMedia\":\"LTO-9\","
                + "\"family\":null,\"state\":\"running\",\"cartridgesTotal\":3,\"cartridgesDone\":1,"
                + "\"cartridgesFailed\":0,\"current\":\"A00041L8\",\"bytesTotal\":20000000000,"
                + "\"bytesDone\":10200000000,\"rateBytesPerSecond\":2833333,\"etaMillis\":7058823,"
                + "\"started\":1,\"ended\":0,\"results\":[],\"error\":null}]}}");
        assertTrue(text.contains("migration L8-L9-1 LTO-8 -> LTO-9 running: 1/3 cartridges emptied, 0 not,"
                + " 10.2 GB/20.0 GB moved, repacking A00041L8 (writing: 3/10 files, 1.2 GB/5.0 GB moved)"), text);
        assertTrue(text.contains("estimated end 1970-01-01T01:57:38.823Z (in 57 min)"), text);
    }

    @Test
    void migration_severalRepacksInFlight_namesEachWithItsProgress() throws Exception {
        String text = print("{\"version\":\"1\",\"startedMillis\":0,\"nowMillis\":1000,\"scheduler\":{"
                + "\"policy\":\"tapeq\",\"now\":3600000,\"background\":{\"waiting\":0,\"running\":2,"
                + "\"maxDrives\":2},\"verifications\":[],\"repacks\":["
                + "{\"source\":\"A00040L8\",\"targetFamily\":\"atlas\",\"state\":\"reading\",\"filesTotal\":9,"
                + "\"bytesTotal\":9000000000,\"filesDone\":0,\"bytesDone\":0,\"started\":1,\"ended\":0},"
                + "{\"source\":\"A00041L8\",\"targetFamily\":\"atlas\",\"state\":\"writing\","
                + "\"target\":\"B00001L9\",\"filesTotal\":10,\"bytesTotal\":5000000000,\"filesDone\":3,"
                + "\"bytesDone\":1200000000,\"started\":1,\"ended\":0}],"
                + "\"migrations\":[{\"id\":\"L8-L9-1\",\"fromMedia\":\"LTO-8\",\"toMedia\":\"LTO-9\","
                + "\"family\":null,\"state\":\"running\",\"cartridgesTotal\":3,\"cartridgesDone\":0,"
                + "\"cartridgesFailed\":0,\"current\":\"A00040L8\",\"moving\":[\"A00040L8\",\"A00041L8\"],"
                + "\"bytesTotal\":20000000000,\"bytesDone\":1200000000,\"rateBytesPerSecond\":333333,"
                + "\"etaMillis\":63600000,\"started\":1,\"ended\":0,\"results\":[],\"error\":null}]}}");
        assertTrue(text.contains("1.2 GB/20.0 GB moved, repacking A00040L8 (reading: 0/9 files, 0 B/9.0 GB moved),"
                + " A00041L8 (writing: 3/10 files, 1.2 GB/5.0 GB moved)"), text);
    }

    @Test
    void verifyPolicyAndRelabels_showWhatIsDueOverdueAndEachRelabel() throws Exception {
        String text = print("{\"version\":\"1\",\"startedMillis\":0,\"nowMillis\":1000,\"scheduler\":{"
                + "\"policy\":\"tapeq\",\"background\":{\"waiting\":0,\"running\":0,\"maxDrives\":1},"
                + "\"verifications\":[],\"verifyPolicy\":{\"perWeek\":20,\"sample\":8,\"lastLook\":0,"
                + "\"nextLook\":86400000,\"eligible\":300,\"overdue\":41,\"nextDue\":[\"A00007L9\",\"A00003L9\"],"
                + "\"lastStarted\":\"A00001L9\",\"lastStartedAt\":0},\"relabels\":[{\"barcode\":\"A00042L9\","
                + "\"family\":\"atlas\",\"state\":\"failed\",\"requested\":0,\"ended\":5,"
                + "\"error\":\"cannot write the label: media error\"}]}}");
        assertTrue(text.contains("periodic verification: 20 a week (sample of 8 aggregates), 300 cartridges in turn,"
                + " 41 overdue; next look 1970-01-02T00:00:00Z; next due: A00007L9 A00003L9; last started A00001L9"),
                text);
        assertTrue(text.contains("relabel A00042L9 for atlas failed - cannot write the label: media error"), text);
        String off = print("{\"version\":\"1\",\"startedMillis\":0,\"nowMillis\":1000,\"scheduler\":{"
                + "\"policy\":\"tapeq\",\"verifyPolicy\":{\"perWeek\":0},\"relabels\":[]}}");
        assertFalse(off.contains("periodic verification"), off);
    }

    @Test
    void cartridgeList_showsTheStateAndTheReclaimableBytes() throws Exception {
        JsonNode list = new ObjectMapper().readTree("[{\"barcode\":\"A00042L9\",\"mediaType\":\"LTO9\","
                + "\"family\":\"atlas\",\"state\":\"EMPTY\",\"capacityBytes\":18000000000000,"
                + "\"usedBytes\":7000000000000,\"reclaimableBytes\":6900000000000,\"tapeFiles\":700,"
                + "\"mountCount\":12,\"disabled\":false,\"reason\":\"repacked to family atlas\",\"files\":0}]");
        StringWriter out = new StringWriter();
        try (PrintWriter w = new PrintWriter(out)) {
            StatusText.printCartridges(list, w);
        }
        String text = out.toString();
        assertTrue(text.lines().findFirst().orElseThrow().contains(" reclaim "), text);
        assertTrue(text.contains("EMPTY"), text);
        assertTrue(text.contains("6.9 TB"), text);
        assertTrue(text.contains("repacked to family atlas"), text);
    }

    @Test
    void noBackgroundWork_noBackgroundLine() throws Exception {
        String text = print("{\"version\":\"1\",\"startedMillis\":0,\"nowMillis\":1000,\"scheduler\":{"
                + "\"policy\":\"tapeq\",\"background\":{\"waiting\":0,\"running\":0,\"maxDrives\":1},"
                + "\"verifications\":[]}}");
        assertFalse(text.contains("background:"), text);
    }
}
