package org.tapeq.poolemulator;

import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.ListenableFuture;
import com.google.common.util.concurrent.SettableFuture;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.dcache.pool.nearline.spi.NearlineRequest;

/**
 * What all emulated requests share, modelled on dCache's pool: a request is QUEUED until the plugin
 * activates it (a second activation fails), its deadline is activation time plus the pool's timeout (and
 * {@link Long#MAX_VALUE} before activation or without a timeout), and exactly one of
 * {@code completed}/{@code failed} may be called; anything else is recorded as a violation.
 */
public abstract class EmulatedRequest<T> implements NearlineRequest<T> {
    private static final VarHandle OUTCOME;
    private static final VarHandle ACTIVATED_AT;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            OUTCOME = lookup.findVarHandle(EmulatedRequest.class, "outcome", Outcome.class);
            ACTIVATED_AT = lookup.findVarHandle(EmulatedRequest.class, "activatedAt", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final PoolEmulator pool;
    private final UUID id = UUID.randomUUID();
    private final long timeoutMillis;
    /** 0 while queued; set once by activation. */
    private volatile long activatedAt;
    private volatile Outcome outcome;

    EmulatedRequest(PoolEmulator pool, long timeoutMillis) {
        this.pool = pool;
        this.timeoutMillis = timeoutMillis;
    }

    /** "flush", "stage" or "remove", for messages. */
    abstract String kind();

    /** Checks a result before the pool accepts it; returns a problem, or null if the result is acceptable. */
    String checkResult(T result) {
        return null;
    }

    @Override
    public UUID getId() {
        return id;
    }

    @Override
    public long getDeadline() {
        long at = activatedAt;
        return at == 0 || timeoutMillis <= 0 ? Long.MAX_VALUE : at + timeoutMillis;
    }

    public boolean isActivated() {
        return activatedAt != 0;
    }

    @Override
    public ListenableFuture<Void> activate() {
        return Futures.transform(activation(), ignored -> null, Runnable::run);
    }

    /** Activation as the pool performs it, honouring the pool's activation switch. */
    final <V> ListenableFuture<V> activation(V value) {
        return Futures.transform(activation(), ignored -> value, Runnable::run);
    }

    private ListenableFuture<Void> activation() {
        if (outcome != null) {
            return Futures.immediateFailedFuture(new IllegalStateException(kind() + " " + id + " is finished"));
        }
        long now = pool.clock().millis();
        if (!ACTIVATED_AT.compareAndSet(this, 0L, Math.max(now, 1L))) {
            return Futures.immediateFailedFuture(new IllegalStateException(kind() + " " + id
                    + " is already active"));
        }
        switch (pool.activationMode()) {
            case FAIL:
                return Futures.immediateFailedFuture(new IllegalStateException("pool: activation of " + kind()
                        + " " + id + " refused (fault switch)"));
            case THROW:
                throw new IllegalStateException("pool: activate() of " + kind() + " " + id + " threw (fault switch)");
            case HOLD:
                SettableFuture<Void> held = SettableFuture.create();
                pool.hold(held);
                return held;
            default:
                return Futures.immediateVoidFuture();
        }
    }

    @Override
    public void failed(Exception cause) {
        finish(Outcome.failed(cause));
    }

    @Override
    public void failed(int rc, String msg) {
        if (rc == 41 || rc == 42 || rc == 43 || rc == 204) {
            pool.violation(kind() + " " + id + " failed with rc " + rc + ", which disables a dCache pool: " + msg);
        } else if (rc == 210 && this instanceof EmulatedStageRequest) {
            pool.violation(kind() + " " + id + " failed with rc 210, which dCache reports as a success: " + msg);
        }
        finish(Outcome.failed(rc, msg));
    }

    @Override
    public void completed(T result) {
        String problem = checkResult(result);
        if (problem != null) {
            pool.violation(kind() + " " + id + ": " + problem);
            finish(Outcome.failed(new IllegalStateException("pool: " + problem)));
            return;
        }
        finish(Outcome.completed(result));
    }

    private void finish(Outcome result) {
        if (!OUTCOME.compareAndSet(this, null, result)) {
            pool.violation(kind() + " " + id + " completed twice: first " + outcome + ", then " + result);
            return;
        }
        if (activatedAt == 0 && !result.isCancelled()) {
            pool.violation(kind() + " " + id + " finished without being activated: " + result);
        }
        pool.finished(this, result);
    }

    /** The outcome, or null while the request is in flight. */
    public Outcome outcome() {
        return outcome;
    }

    /** Waits for the outcome; fails with {@link TimeoutException} naming the request. */
    public Outcome awaitOutcome(long timeout, TimeUnit unit) throws InterruptedException, TimeoutException {
        return pool.await(this, timeout, unit);
    }

    /** Asks the plugin to cancel this request, as dCache does on a timeout or an admin's kill. */
    public void cancel() {
        pool.storage().cancel(id);
    }

    @Override
    public String toString() {
        return kind() + " " + id;
    }
}
