package org.tapeq.daemon;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.ForwardingLibrary;
import org.tapeq.scheduler.tape.Inventory;
import org.tapeq.scheduler.tape.TapeFileSource;
import org.tapeq.scheduler.tape.TapeLibrary;
import org.tapeq.scheduler.tape.WrittenFile;
import org.tapeq.scheduler.time.EventLoop;

/**
 * A library's robot as a ledger sees it, where the robot is driven ({@code tapeq sim-library}): which drive each
 * cartridge is in or being moved into. It counts double mounts, loads the robot did of a cartridge the ledger had
 * in another drive, and double mount requests, mounts asked of a cartridge another drive holds or is being loaded
 * with (whoever asked lost track of it; a real robot, like the simulated one, refuses it). Passes every call on
 * to the library it stands in front of ({@link ForwardingLibrary}).
 *
 * <p>Design notes. Its maps are owned by the library's loop, on which every call and every completion runs
 * (TapeLibrary's contract); the counters are volatile for readers on other threads. A cartridge counts as placed
 * from the mount's request on (the robot is taking it) until its unmount succeeds; a failed mount places it
 * nowhere, a failed unmount leaves it in the drive, as the simulated library does.
 */
public final class MountLedger extends ForwardingLibrary {

    private static final Logger LOG = LoggerFactory.getLogger(MountLedger.class);
    private static final long INVENTORY_WAIT_SECONDS = 60;

    /** The drive each cartridge is in (loaded and not unloaded since); loop only. */
    private final Map<String, String> driveOf = new HashMap<>();
    /** The cartridge each drive holds; loop only. */
    private final Map<String, String> heldBy = new HashMap<>();
    /** The drive each cartridge is being loaded into (mount asked, not ended); loop only. */
    private final Map<String, String> loadingInto = new HashMap<>();
    /** Tape files appended per cartridge; written on the loop, read at the stop. */
    private final Map<String, Long> filesWritten = new java.util.concurrent.ConcurrentHashMap<>();
    private volatile long mounts;
    private volatile long doubleMounts;
    private volatile long doubleMountRequests;

    private MountLedger(TapeLibrary library) {
        super(library);
    }

    /** A ledger in front of {@code library}, starting from its inventory (read on {@code loop}, waited for). */
    public static MountLedger start(TapeLibrary library, EventLoop loop) throws InterruptedException {
        MountLedger ledger = new MountLedger(library);
        CompletableFuture<Inventory> inv = new CompletableFuture<>();
        loop.execute(() -> library.inventory(new Completion<>() {
            @Override
            public void succeeded(Inventory value) {
                inv.complete(value);
            }

            @Override
            public void failed(TapeFault fault) {
                inv.completeExceptionally(fault);
            }
        }));
        Inventory start;
        try {
            start = inv.get(INVENTORY_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("the library's inventory at start failed: " + e.getMessage(), e);
        }
        CompletableFuture<Void> filled = new CompletableFuture<>();
        loop.execute(() -> {
            for (Inventory.Drive d : start.drives()) {
                if (d.loadedBarcode() != null) {
                    ledger.driveOf.put(d.loadedBarcode(), d.id());
                    ledger.heldBy.put(d.id(), d.loadedBarcode());
                }
            }
            filled.complete(null);
        });
        filled.join();
        return ledger;
    }

    /** Mounts that succeeded. */
    public long mounts() {
        return mounts;
    }

    /**
     * Loads the robot did (the mount succeeded) of a cartridge that the ledger had in another drive: the same
     * cartridge in two drives at once as far as anyone can tell.
     */
    public long doubleMounts() {
        return doubleMounts;
    }

    /** Mounts asked of a cartridge another drive held or was being loaded with, whether the robot did them or not. */
    public long doubleMountRequests() {
        return doubleMountRequests;
    }

    @Override
    public void mount(String drive, String barcode, Completion<Void> done) {
        String other = loadingInto.get(barcode);
        if (other == null || other.equals(drive)) {
            other = driveOf.get(barcode);
        }
        if (other != null && !other.equals(drive)) {
            doubleMountRequests++;
            LOG.error("Double mount asked: {} into drive {} while drive {} holds it (or is being loaded with it)",
                    barcode, drive, other);
        }
        loadingInto.put(barcode, drive);
        delegate().mount(drive, barcode, new Completion<>() {
            @Override
            public void succeeded(Void value) {
                mounts++;
                loadingInto.remove(barcode, drive);
                String elsewhere = driveOf.get(barcode);
                if (elsewhere != null && !elsewhere.equals(drive)) {
                    doubleMounts++;
                    LOG.error("Double mount: the robot loaded {} into drive {} while drive {} held it", barcode,
                            drive, elsewhere);
                    heldBy.remove(elsewhere, barcode);
                }
                String before = heldBy.put(drive, barcode); // a load replaces whatever was recorded in the drive
                if (before != null && !before.equals(barcode)) {
                    driveOf.remove(before, drive);
                }
                driveOf.put(barcode, drive);
                done.succeeded(value);
            }

            @Override
            public void failed(TapeFault fault) {
                loadingInto.remove(barcode, drive);
                done.failed(fault);
            }
        });
    }

    @Override
    public void unmount(String drive, Completion<Void> done) {
        delegate().unmount(drive, new Completion<>() {
            @Override
            public void succeeded(Void value) {
                String barcode = heldBy.remove(drive);
                if (barcode != null) {
                    driveOf.remove(barcode);
                }
                done.succeeded(value);
            }

            @Override
            public void failed(TapeFault fault) {
                done.failed(fault);
            }
        });
    }

    @Override
    public void append(String drive, TapeFileSource source, Completion<WrittenFile> done) {
        delegate().append(drive, source, counted(drive, done));
    }

    @Override
    public void appendBuffered(String drive, TapeFileSource source, Completion<WrittenFile> done) {
        delegate().appendBuffered(drive, source, counted(drive, done));
    }

    /** {@code done}, counting the tape file appended on the cartridge in {@code drive} first. */
    private Completion<WrittenFile> counted(String drive, Completion<WrittenFile> done) {
        String barcode = heldBy.get(drive);
        return new Completion<>() {
            @Override
            public void succeeded(WrittenFile value) {
                if (barcode != null) {
                    filesWritten.merge(barcode, 1L, Long::sum);
                }
                done.succeeded(value);
            }

            @Override
            public void failed(TapeFault fault) {
                done.failed(fault);
            }
        };
    }

    /** Tape files appended (labels left out) per cartridge since the ledger started; a copy, any thread. */
    public Map<String, Long> filesWritten() {
        return Map.copyOf(filesWritten);
    }
}
