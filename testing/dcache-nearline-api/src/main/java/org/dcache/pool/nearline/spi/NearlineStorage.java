package org.dcache.pool.nearline.spi;

import java.io.IOException;
import java.util.Map;
import java.util.UUID;

/** Declaration compatible with dCache's {@code NearlineStorage} (dcache-nearline-spi). */
public interface NearlineStorage {
    void flush(Iterable<FlushRequest> requests);

    void stage(Iterable<StageRequest> requests);

    void remove(Iterable<RemoveRequest> requests);

    void cancel(UUID uuid);

    void configure(Map<String, String> properties) throws IllegalArgumentException;

    default void start() throws IOException {
    }

    void shutdown();
}
