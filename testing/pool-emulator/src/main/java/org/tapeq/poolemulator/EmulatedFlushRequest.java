package org.tapeq.poolemulator;

import com.google.common.util.concurrent.ListenableFuture;
import java.net.URI;
import java.util.Set;
import org.dcache.pool.nearline.spi.FlushRequest;
import org.dcache.vehicles.FileAttributes;

/** A flush as a pool makes it: the replica is on the pool's disk, the result is the tape URIs. */
public final class EmulatedFlushRequest extends EmulatedFileRequest<Set<URI>> implements FlushRequest {
    private final String path;
    private final long creationTime;

    EmulatedFlushRequest(PoolEmulator pool, FileAttributes attributes, String path, long timeoutMillis) {
        super(pool, attributes, timeoutMillis);
        this.path = path;
        this.creationTime = pool.clock().millis();
    }

    @Override
    String kind() {
        return "flush";
    }

    @Override
    public long getReplicaCreationTime() {
        return creationTime;
    }

    @Override
    public ListenableFuture<String> activateWithPath() {
        return activation(path);
    }

    @Override
    String checkResult(Set<URI> uris) {
        if (uris == null || uris.isEmpty()) {
            return "flush completed without a tape location";
        }
        for (URI uri : uris) {
            if (!pool.hsmType().equals(uri.getScheme()) || !pool.hsmInstance().equals(uri.getAuthority())) {
                return "tape location " + uri + " does not have scheme " + pool.hsmType() + " and authority "
                        + pool.hsmInstance() + "; dCache rejects it";
            }
        }
        return null;
    }
}
