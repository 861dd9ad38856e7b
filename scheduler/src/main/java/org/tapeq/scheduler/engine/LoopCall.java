package org.tapeq.scheduler.engine;

import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import org.tapeq.scheduler.time.EventLoop;

/** How a call from any thread reaches the engine: its body runs on the loop and completes the future it is given. */
final class LoopCall {

    private LoopCall() {
    }

    /** Runs {@code body} on {@code loop}; an exception it throws fails the future. */
    static <T> CompletableFuture<T> on(EventLoop loop, Consumer<CompletableFuture<T>> body) {
        CompletableFuture<T> f = new CompletableFuture<>();
        loop.execute(() -> {
            try {
                body.accept(f);
            } catch (RuntimeException e) {
                f.completeExceptionally(e);
            }
        });
        return f;
    }

    /** Runs {@code start} on {@code loop} and ends as the future it returns does. */
    static <T> CompletableFuture<T> onLoopThen(EventLoop loop, java.util.function.Supplier<CompletableFuture<T>> start) {
        return on(loop, f -> start.get().whenComplete((v, e) -> {
            if (e != null) {
                f.completeExceptionally(e);
            } else {
                f.complete(v);
            }
        }));
    }
}
