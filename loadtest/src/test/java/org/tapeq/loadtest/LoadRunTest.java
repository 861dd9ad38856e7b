package org.tapeq.loadtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.config.ConfigException;
import org.tapeq.loadtest.report.ReportWriter;
import org.tapeq.loadtest.report.Summary;
import org.tapeq.loadtest.report.Throughput;
import org.tapeq.loadtest.report.Verdict;
import org.tapeq.loadtest.run.ExistingDaemon;
import org.tapeq.loadtest.run.FileList;
import org.tapeq.loadtest.run.LoadRun;
import org.tapeq.loadtest.run.Plan;
import org.tapeq.loadtest.run.RequestLog.End;
import org.tapeq.loadtest.run.RequestLog.Kind;
import org.tapeq.loadtest.run.RunRecord;
import org.tapeq.loadtest.run.StartedDaemon;
import org.tapeq.loadtest.run.Transfer;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.workload.scenario.Scenario;
import org.tapeq.workload.scenario.ScenarioFile;

/** Whole runs: provider, pool emulator and a real daemon with a small simulated library at scaled time. */
class LoadRunTest {

    private final ByteArrayOutputStream progress = new ByteArrayOutputStream();

    private RunRecord run(Scenario s, Path dir) throws Exception {
        return run(s, dir.resolve("work"), dir.resolve("report"));
    }

    /** A run on the harness's simulated library with work directory {@code work}, its report in {@code report}. */
    private RunRecord run(Scenario s, Path work, Path report) throws Exception {
        Plan plan = Plan.of(s);
        try (StartedDaemon daemon = StartedDaemon.simulated(s, plan, work)) {
            LoadRun run = new LoadRun(s, plan, daemon, work.resolve("pool"), new PrintStream(progress), false);
            return LoadtestCommand.withStopHook(run, new NoHooks(), () -> report(run, report));
        }
    }

    @Test
    void run_smallDataTaking_flushesEverything_nothingLost(@TempDir Path dir) throws Exception {
        Scenario s = ScenarioFile.parse(String.join("\n",
                "type: dt",
                "library: {drives: 2, cartridges: 4, speed: 1000}",
                "experiments:",
                "  - {name: atlas, rate: 50kB/s, duration: 10m, datasets: 2,"
                        + " size: {median: 100kB, sigma: 0.5, min: 10kB, max: 1MB}}",
                "timeout: 24h",
                ""), "small-dt.yaml");
        RunRecord r = run(s, dir);
        Summary sum = Summary.of(r);
        int planned = Plan.of(s).measuredCount();
        assertTrue(planned > 100, "planned " + planned);
        assertEquals(planned, sum.outcomes().get(Kind.FLUSH).get(End.COMPLETED), sum.toString());
        assertEquals(0, sum.count(End.LOST) + sum.count(End.FAILED));
        assertFalse(r.partial());
        assertTrue(sum.mounts() > 0, "the daemon mounted cartridges: " + sum.mounts());
        assertFalse(r.mountsPerCartridge().isEmpty());
        assertTrue(Verdict.of(r, sum).passed(), r.problems().toString());
        assertTrue(Files.readString(dir.resolve("report").resolve(ReportWriter.MARKDOWN)).contains("**PASSED**"));
        // the drives told every aggregate they wrote (format included), and the plot stays within the two drives
        assertTrue(r.transfers().stream().allMatch(Transfer::write), r.transfers().toString());
        long written = r.transfers().stream().mapToLong(Transfer::bytes).sum();
        assertTrue(written >= sum.bytes().get(Kind.FLUSH), written + " bytes written, " + sum.bytes() + " flushed");
        double peak = Throughput.of(r, 150).peak();
        assertTrue(peak <= 2 * MediaType.LTO9.rateBytesPerSecond() / 1e6 * 1.01, "peak " + peak + " MB/s");
    }

    @Test
    void run_smallRecall_stagesEveryInput_checksumsAgree(@TempDir Path dir) throws Exception {
        Scenario s = ScenarioFile.parse(String.join("\n",
                "type: mixed",
                "library: {drives: 2, cartridges: 4, speed: 1000}",
                "experiments:",
                "  - {name: atlas, activity: adt, datasets: 2, filesPerDataset: 20, order: mixed,"
                        + " size: {median: 1MB, sigma: 0.5, min: 10kB, max: 10MB}}",
                "  - {name: cms, activity: carousel, datasets: 2, filesPerDataset: 10, window: 20%, processTime: 1m,"
                        + " size: {median: 1MB, sigma: 0, min: 1MB, max: 1MB}}",
                "timeout: 24h",
                ""), "small-recall.yaml");
        RunRecord r = run(s, dir);
        Summary sum = Summary.of(r);
        assertEquals(60, sum.outcomes().get(Kind.STAGE).get(End.COMPLETED), sum + " " + r.problems());
        assertEquals(0, r.spiViolations());
        assertTrue(Verdict.of(r, sum).passed(), r.problems().toString());
        // at most the A-DT's 40 and the carousel's window (20 % of 20 inputs: 4) outstanding at the pool at once,
        // while 60 would be if the window were ignored (everything is requested at the start)
        long most = r.samples().stream().mapToLong(x -> x.outstanding()).max().orElse(0);
        assertTrue(most <= 40 + 4, "window respected: at most " + most + " outstanding");
    }

    /** A burst on another media than the default: the cartridges written before the start are the daemon's. */
    @Test
    void run_burstOnLto8_stagesEveryRequest(@TempDir Path dir) throws Exception {
        Scenario s = ScenarioFile.parse(String.join("\n",
                "type: burst",
                "library: {drives: 2, cartridges: 3, media: LTO8, speed: 1000}",
                "experiments:",
                "  - {name: bench, requests: 60, fileSize: 10kB}",
                "timeout: 24h",
                ""), "burst-lto8.yaml");
        RunRecord r = run(s, dir);
        Summary sum = Summary.of(r);
        assertEquals(60, sum.outcomes().get(Kind.STAGE).get(End.COMPLETED), sum + " " + r.problems());
        assertEquals(0, sum.count(End.LOST) + sum.count(End.FAILED));
        assertTrue(r.mountsPerCartridge().keySet().stream().allMatch(b -> b.endsWith("L8")),
                r.mountsPerCartridge().toString());
    }

    /**
     * An A-DT of what a DT wrote: the DT's report lists its files, the A-DT (inputs: that report) recalls them from
     * the cartridges of the same work directory, each once, beginning with empty drives.
     */
    @Test
    void run_dtThenAdtOfItsFiles_sameWorkDirectory_recallsEveryFileWritten(@TempDir Path dir) throws Exception {
        String library = "library: {drives: 2, cartridges: 4, speed: 1000}";
        Scenario dt = ScenarioFile.parse(String.join("\n", "type: dt", library, "experiments:",
                "  - {name: atlas, rate: 50kB/s, duration: 5m, datasets: 2,"
                        + " size: {median: 100kB, sigma: 0.5, min: 10kB, max: 1MB}}", ""), "dt.yaml");
        Path work = dir.resolve("work");
        RunRecord wrote = run(dt, work, dir.resolve("dt"));
        assertTrue(Verdict.of(wrote, Summary.of(wrote)).passed(), wrote.problems().toString());
        List<FileList.Entry> listed = FileList.read(dir.resolve("dt"));
        assertEquals(Summary.of(wrote).outcomes().get(Kind.FLUSH).get(End.COMPLETED), listed.size());
        assertTrue(listed.size() > 50, "listed " + listed.size());

        Path otherLibrary = Files.writeString(dir.resolve("other.yaml"), String.join("\n", "type: adt",
                "library: {drives: 3, cartridges: 4, speed: 1000}", "experiments: [{name: atlas, inputs: dt}]", ""));
        Scenario other = ScenarioFile.load(otherLibrary);
        ConfigException changed = assertThrows(ConfigException.class,
                () -> StartedDaemon.simulated(other, Plan.of(other), work));
        assertTrue(changed.getMessage().contains("library: 3 drives") && changed.getMessage().contains("had 2 drives"),
                changed.getMessage());

        Path adtFile = Files.writeString(dir.resolve("adt.yaml"), String.join("\n", "type: adt", library,
                "experiments: [{name: atlas, inputs: dt, order: mixed}]", ""));
        Scenario adt = ScenarioFile.load(adtFile);
        RunRecord read = run(adt, work, dir.resolve("adt"));
        Summary sum = Summary.of(read);
        assertEquals(listed.size(), sum.outcomes().get(Kind.STAGE).get(End.COMPLETED), sum + " " + read.problems());
        assertEquals(listed.stream().mapToLong(FileList.Entry::size).sum(), sum.bytes().get(Kind.STAGE));
        assertEquals(0, read.prepared(), "nothing written first");
        assertTrue(Verdict.of(read, sum).passed(), read.problems().toString());
        assertTrue(read.emptied().empty());
        assertTrue(sum.mounts() > 0, "the drives were empty, so the recall mounted: " + sum.mounts());
        assertTrue(Files.readString(dir.resolve("adt").resolve(ReportWriter.MARKDOWN))
                .contains("recall the files atlas wrote in an earlier run"));
    }

    /** The library the harness starts on a new work directory has an empty catalog: nothing a dt wrote to recall. */
    @Test
    void simulated_adtWithInputs_workDirectoryWithoutCatalog_refusedNamingTheReason(@TempDir Path dir)
            throws Exception {
        FileList.write(dir.resolve(FileList.NAME), List.of(new FileList.Entry("00AB", 1000, "atlas:raw", "/pnfs/a",
                "03e80001", "atlas", 0)));
        Scenario s = ScenarioFile.parse("type: adt\nexperiments: [{name: atlas}]\n", "adt.yaml", dir);
        Path work = dir.resolve("work");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> StartedDaemon.simulated(s, Plan.of(s), work));
        assertTrue(e.getMessage().startsWith("adt.yaml: an adt with inputs recalls files an earlier dt wrote")
                && e.getMessage().contains(work + " holds no catalog") && e.getMessage().contains("--work DIR"),
                e.getMessage());
        assertFalse(Files.exists(work.resolve("endit")), "nothing made");
    }

    /** An A-DT writing its own inputs through the chain: the cartridges it wrote are unloaded before the recall. */
    @Test
    void run_adtWritingItsInputs_recallStartsWithEmptyDrives(@TempDir Path dir) throws Exception {
        Scenario s = ScenarioFile.parse(String.join("\n",
                "type: adt",
                // x200: the idle unmount (15 min) alone would take 4.5 s of wall time to free the drive
                "library: {drives: 1, cartridges: 2, speed: 200, data: bytes}",
                "experiments:",
                "  - {name: atlas, datasets: 1, filesPerDataset: 5, size: {median: 100kB, sigma: 0}}",
                "timeout: 24h",
                ""), "own-inputs.yaml");
        RunRecord r = run(s, dir);
        Summary sum = Summary.of(r);
        assertEquals(5, r.prepared());
        assertTrue(r.prepareMillis() > 0, "written through the chain");
        assertEquals(5, sum.outcomes().get(Kind.STAGE).get(End.COMPLETED), sum + " " + r.problems());
        assertTrue(r.emptied().empty(), r.emptied().toString());
        assertTrue(sum.mounts() >= 1, "the recall mounted the cartridge its inputs were written to: " + sum.mounts());
        assertTrue(Files.readString(dir.resolve("report").resolve(ReportWriter.MARKDOWN)).contains("Drives: "));
    }

    /** A daemon known only by its request directory: inputs flushed through the chain first, mounts unknown. */
    @Test
    void run_existingDaemon_writesTheInputsThroughTheChain(@TempDir Path dir) throws Exception {
        Scenario s = ScenarioFile.parse(String.join("\n",
                "type: adt",
                "library: {drives: 1, cartridges: 2, speed: 1000, data: bytes}",
                "experiments:",
                "  - {name: atlas, datasets: 2, filesPerDataset: 5, size: {median: 100kB, sigma: 0.5, min: 1kB,"
                        + " max: 1MB}}",
                "timeout: 24h",
                ""), "existing.yaml");
        Plan plan = Plan.of(s);
        try (StartedDaemon daemon = StartedDaemon.simulated(s, plan, dir.resolve("work"))) {
            assertFalse(daemon.inputsOnTape(), "with real bytes the inputs are not written before the start");
            ExistingDaemon existing = new ExistingDaemon(daemon.requestDirectory(), 1000);
            LoadRun run = new LoadRun(s, plan, existing, dir.resolve("work/pool"), new PrintStream(progress), false);
            RunRecord r = LoadtestCommand.withStopHook(run, new NoHooks(), () -> report(run, dir.resolve("report")));
            Summary sum = Summary.of(r);
            assertEquals(10, r.prepared());
            assertEquals(0, r.prepareFailed());
            assertTrue(r.prepareMillis() > 0);
            assertEquals(10, sum.outcomes().get(Kind.STAGE).get(End.COMPLETED), sum + " " + r.problems());
            assertEquals(-1, sum.mounts(), "mounts are not known for a daemon known only by its directory");
            assertNull(r.emptied(), "nor are its drives: the recall may start with cartridges mounted");
            assertNull(r.transfers(), "nor its transfers: the throughput plot counts answered bytes");
            assertTrue(r.samples().stream().allMatch(x -> x.queued() >= 0), "request files counted");
            assertTrue(Verdict.of(r, sum).passed(), r.problems().toString());
        }
    }

    /** The Ctrl-C path: the hook stops the run, the report is written partial, the hook returns after it. */
    @Test
    void stopHook_midRun_writesAPartialReport(@TempDir Path dir) throws Exception {
        Scenario s = ScenarioFile.parse(String.join("\n",
                "type: adt",
                "library: {drives: 1, cartridges: 2, speed: 1}", // real time: a mount alone takes longer than this test
                "experiments:",
                "  - {name: atlas, datasets: 1, filesPerDataset: 50, size: {median: 1MB, sigma: 0}}",
                ""), "stop.yaml");
        Plan plan = Plan.of(s);
        AtomicReference<Thread> hook = new AtomicReference<>();
        try (StartedDaemon daemon = StartedDaemon.simulated(s, plan, dir.resolve("work"))) {
            LoadRun run = new LoadRun(s, plan, daemon, dir.resolve("work/pool"), new PrintStream(progress), false);
            Thread signal = new Thread(() -> {
                while (run.issued() < 50) {
                    Thread.onSpinWait();
                }
                hook.get().start(); // what the JVM does on SIGINT
            });
            signal.start();
            RunRecord r = LoadtestCommand.withStopHook(run, new LoadtestCommand.Hooks() {
                @Override
                public void add(Thread h) {
                    hook.set(h);
                }

                @Override
                public void remove(Thread h) {
                    // nothing installed
                }
            }, () -> report(run, dir.resolve("report")));
            assertTrue(r.partial());
            assertEquals("interrupted (Ctrl-C or SIGTERM)", r.stopReason());
            Summary sum = Summary.of(r);
            assertEquals(50, sum.requests());
            assertTrue(sum.count(End.OUTSTANDING) > 0, sum.toString());
            assertEquals(0, sum.count(End.LOST));
            String md = Files.readString(dir.resolve("report").resolve(ReportWriter.MARKDOWN));
            assertTrue(md.startsWith("# tapeq loadtest: adt (PARTIAL)"), md);
            assertNotNull(hook.get());
            hook.get().join(10_000);
            assertFalse(hook.get().isAlive(), "the hook returned once the report was written");
        }
    }

    private static RunRecord report(LoadRun run, Path report) throws Exception {
        RunRecord r = run.run();
        ReportWriter.write(r, report);
        return r;
    }

    private static final class NoHooks implements LoadtestCommand.Hooks {
        @Override
        public void add(Thread hook) {
        }

        @Override
        public void remove(Thread hook) {
        }
    }
}
