package org.tapeq.scheduler.engine;

import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.Inventory;
import org.tapeq.scheduler.tape.TapeLibrary;
import org.tapeq.scheduler.time.EventLoop;

/**
 * The inventory a scheduler starts from, asked again a few times when the library does not answer it: a changer
 * whose mover is still starting, or slow to answer on a loaded host, should delay a start, not end it. After the
 * last attempt the start fails with the library's fault, naming the attempts. Loop thread only.
 */
final class FirstInventory {

    private static final Logger LOG = LoggerFactory.getLogger(FirstInventory.class);

    /** Attempts before the start fails. */
    static final int ATTEMPTS = 5;
    /** Pause between two attempts (loop time). */
    static final long PAUSE_MILLIS = 3_000;

    private final EventLoop loop;
    private final TapeLibrary library;
    private final Consumer<Inventory> start;
    private final CompletableFuture<Void> started;
    private int attempt;

    /**
     * @param start   starts the engine on the inventory (may throw: the start fails with it)
     * @param started completed once {@code start} ran, or failed
     */
    FirstInventory(EventLoop loop, TapeLibrary library, Consumer<Inventory> start, CompletableFuture<Void> started) {
        this.loop = loop;
        this.library = library;
        this.start = start;
        this.started = started;
    }

    /** Asks the library; on the loop. */
    void ask() {
        attempt++;
        library.inventory(new Completion<>() {
            @Override
            public void succeeded(Inventory inventory) {
                try {
                    start.accept(inventory);
                    started.complete(null);
                } catch (RuntimeException e) {
                    started.completeExceptionally(e);
                }
            }

            @Override
            public void failed(TapeFault fault) {
                if (attempt >= ATTEMPTS) {
                    started.completeExceptionally(new TapeFault(fault.kind(), "the library's inventory failed "
                            + attempt + " times at start, the last: " + fault.getMessage(), fault));
                    return;
                }
                LOG.warn("The library's inventory failed at start (attempt {} of {}): {}; asking again in {} s",
                        attempt, ATTEMPTS, fault.getMessage(), PAUSE_MILLIS / 1000);
                loop.schedule(PAUSE_MILLIS, FirstInventory.this::ask);
            }
        });
    }
}
