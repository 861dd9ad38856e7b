package org.tapeq.poolemulator;

import diskCacheV111.util.PnfsId;
import java.io.File;
import java.net.URI;
import org.dcache.vehicles.FileAttributes;

/** What flushes and stages share: a file with attributes and a replica in the pool's data directory. */
public abstract class EmulatedFileRequest<T> extends EmulatedRequest<T> {
    final FileAttributes attributes;

    EmulatedFileRequest(PoolEmulator pool, FileAttributes attributes, long timeoutMillis) {
        super(pool, timeoutMillis);
        this.attributes = attributes;
    }

    public PnfsId pnfsId() {
        return attributes.getPnfsId();
    }

    @Deprecated
    public File getFile() {
        return new File(getReplicaUri());
    }

    public URI getReplicaUri() {
        return pool.replicaUri(attributes.getPnfsId());
    }

    public FileAttributes getFileAttributes() {
        return attributes;
    }
}
