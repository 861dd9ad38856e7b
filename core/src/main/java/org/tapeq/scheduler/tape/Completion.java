package org.tapeq.scheduler.tape;

import org.tapeq.scheduler.model.TapeFault;

/** The answer to one asynchronous tape operation; exactly one method is called, on the event loop. */
public interface Completion<T> {

    void succeeded(T value);

    void failed(TapeFault fault);
}
