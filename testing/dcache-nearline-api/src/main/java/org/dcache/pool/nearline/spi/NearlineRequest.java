package org.dcache.pool.nearline.spi;

import com.google.common.util.concurrent.ListenableFuture;
import java.util.UUID;

/** Declaration compatible with dCache's {@code NearlineRequest} (dcache-nearline-spi). */
public interface NearlineRequest<T> {
    UUID getId();

    long getDeadline();

    ListenableFuture<Void> activate();

    void failed(Exception cause);

    void failed(int rc, String msg);

    void completed(T result);
}
