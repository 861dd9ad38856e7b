package org.tapeq.poolemulator;

import java.net.URI;
import org.dcache.pool.nearline.spi.RemoveRequest;

/** A remove as a pool makes it: the URI a flush once returned. */
public final class EmulatedRemoveRequest extends EmulatedRequest<Void> implements RemoveRequest {
    private final URI uri;

    EmulatedRemoveRequest(PoolEmulator pool, URI uri, long timeoutMillis) {
        super(pool, timeoutMillis);
        this.uri = uri;
    }

    @Override
    String kind() {
        return "remove";
    }

    @Override
    public URI getUri() {
        return uri;
    }
}
