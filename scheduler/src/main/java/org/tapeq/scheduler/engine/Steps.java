package org.tapeq.scheduler.engine;

import java.util.function.Consumer;

import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.Completion;

/** Chains asynchronous tape operations: a completion from a success step and a failure step. */
final class Steps {

    private Steps() {
    }

    static <T> Completion<T> then(Consumer<T> next, Consumer<TapeFault> onFailure) {
        return new Completion<>() {
            @Override
            public void succeeded(T value) {
                next.accept(value);
            }

            @Override
            public void failed(TapeFault fault) {
                onFailure.accept(fault);
            }
        };
    }
}
