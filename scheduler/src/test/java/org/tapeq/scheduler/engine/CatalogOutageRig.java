package org.tapeq.scheduler.engine;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import org.tapeq.scheduler.catalog.jdbc.JdbcCatalog;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.tape.sim.SimLibraryBuilder;
import org.tapeq.scheduler.tape.sim.SimulatedLibrary;
import org.tapeq.scheduler.time.RealTimeEventLoop;
import org.tapeq.testing.postgres.CuttableProxy;
import org.tapeq.testing.postgres.TestSchema;

/**
 * A started scheduler on the daemon's configuration (real-time loop, catalog writer thread, two I/O threads) whose
 * PostgreSQL catalog is reached through a proxy the test cuts and restores ({@link CuttableProxy}), with a
 * one-drive simulated library that keeps bytes; every outcome is collected by request id. Closes everything it
 * opened, the catalog first.
 */
final class CatalogOutageRig implements AutoCloseable {

    final CuttableProxy proxy;
    final RealTimeEventLoop loop;
    final SimulatedLibrary library;
    final JdbcCatalog catalog;
    final Scheduler scheduler;
    final Map<Long, Outcome> outcomes = new ConcurrentHashMap<>();
    private final ExecutorService io;

    /**
     * @param config   changes to the rig's configuration (300 kB aggregates waiting up to 30 s, 10 s quiet time)
     * @param barcodes LTO-9 cartridges of 1 GB in the library, not labelled
     */
    static CatalogOutageRig start(TestSchema schema, Path tapes, UnaryOperator<SchedulerConfig.Builder> config,
                                  String... barcodes) throws Exception {
        CatalogOutageRig rig = new CatalogOutageRig(schema, tapes, config, barcodes);
        try {
            rig.scheduler.start().get(30, TimeUnit.SECONDS);
            return rig;
        } catch (Exception | Error e) {
            rig.close();
            throw e;
        }
    }

    private CatalogOutageRig(TestSchema schema, Path tapes, UnaryOperator<SchedulerConfig.Builder> config,
                             String... barcodes) throws IOException {
        io = Executors.newFixedThreadPool(2);
        CuttableProxy p = null;
        RealTimeEventLoop l = null;
        SimulatedLibrary lib = null;
        try {
            p = new CuttableProxy(schema.host(), schema.port());
            l = new RealTimeEventLoop("tapeq-test-loop", 5000);
            SimLibraryBuilder b = SimulatedLibrary.builder(l).bytes(tapes).drives(1);
            for (String barcode : barcodes) {
                b.cartridge(barcode, MediaType.LTO9, 1_000_000_000L);
            }
            lib = b.build();
            catalog = JdbcCatalog.open(schema.urlVia(p.port()));
        } catch (IOException | RuntimeException e) {
            closeAll(null, lib, l, p, io);
            throw e;
        }
        proxy = p;
        loop = l;
        library = lib;
        scheduler = Scheduler.builder().loop(loop).library(library).catalog(catalog).io(io)
                .config(config.apply(SchedulerConfig.builder().aggregateBytes(300_000).aggregateWaitMillis(30_000)
                        .quietMillis(10_000)).build())
                .listener((r, o) -> outcomes.put(r.id(), o)).build();
    }

    /** Labels a cartridge for a family and waits for it. */
    void label(String barcode, String family) throws Exception {
        scheduler.labelCartridge(barcode, family, false).get(30, TimeUnit.SECONDS);
    }

    /** Outcomes of requests with ids {@code from} (inclusive) to {@code to} (exclusive). */
    long answered(long from, long to) {
        return outcomes.keySet().stream().filter(id -> id >= from && id < to).count();
    }

    @Override
    public void close() throws IOException {
        closeAll(catalog, library, loop, proxy, io);
    }

    private static void closeAll(JdbcCatalog catalog, SimulatedLibrary library, RealTimeEventLoop loop,
                                 CuttableProxy proxy, ExecutorService io) throws IOException {
        try {
            if (catalog != null) {
                catalog.close();
            }
            if (library != null) {
                library.close();
            }
            if (loop != null) {
                loop.close();
            }
            if (proxy != null) {
                proxy.close();
            }
        } finally {
            io.shutdownNow();
        }
    }
}
