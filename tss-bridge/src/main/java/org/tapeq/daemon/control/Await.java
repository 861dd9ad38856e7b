package org.tapeq.daemon.control;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import com.fasterxml.jackson.databind.JsonNode;

/** How long a control worker waits for the scheduler's answer to an admin command. */
final class Await {

    /** Label, inventory and rebuild mount or scan cartridges; they may wait for a drive. */
    private static final long TAPE_TASK_TIMEOUT_MINUTES = 120;
    private static final long QUICK_TIMEOUT_SECONDS = 30;

    private Await() {
    }

    /** The text {@code "done"} once {@code f} completed. */
    static JsonNode done(CompletableFuture<Void> f) throws Exception {
        quick(f);
        return ControlProtocol.JSON.getNodeFactory().textNode("done");
    }

    static <T> T quick(CompletableFuture<T> f) throws Exception {
        return await(f, QUICK_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }

    static <T> T tapeTask(CompletableFuture<T> f) throws Exception {
        return await(f, TAPE_TASK_TIMEOUT_MINUTES, TimeUnit.MINUTES);
    }

    private static <T> T await(CompletableFuture<T> f, long timeout, TimeUnit unit) throws Exception {
        try {
            return f.get(timeout, unit);
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof IllegalArgumentException) {
                throw (IllegalArgumentException) c;
            }
            throw c instanceof Exception ? (Exception) c : e;
        } catch (TimeoutException e) {
            throw new TimeoutException("no answer within " + timeout + " " + unit.toString().toLowerCase()
                    + "; the task continues in the daemon");
        }
    }
}
