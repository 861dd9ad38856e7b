package org.tapeq.poolemulator;

import com.google.common.util.concurrent.ListenableFuture;
import diskCacheV111.util.PnfsId;
import java.io.File;
import java.net.URI;
import java.util.Set;
import org.dcache.pool.nearline.spi.FlushRequest;
import org.dcache.vehicles.FileAttributes;

/** A flush as a pool makes it: the replica is on the pool's disk, the result is the tape URIs. */
public final class EmulatedFlushRequest extends EmulatedRequest<Set<URI>> implements FlushRequest {
    private final FileAttributes attributes;
    private final String path;
    private final long creationTime;

    EmulatedFlushRequest(PoolEmulator pool, FileAttributes attributes, String path, long timeoutMillis) {
        super(pool, timeoutMillis);
        this.attributes = attributes;
        this.path = path;
        this.creationTime = pool.clock().millis();
    }

    @Override
    String kind() {
        return "flush";
    }

    public PnfsId pnfsId() {
        return attributes.getPnfsId();
    }

    @Override
    @Deprecated
    public File getFile() {
        return new File(getReplicaUri());
    }

    @Override
    public URI getReplicaUri() {
        return pool.replicaUri(attributes.getPnfsId());
    }

    @Override
    public FileAttributes getFileAttributes() {
        return attributes;
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
