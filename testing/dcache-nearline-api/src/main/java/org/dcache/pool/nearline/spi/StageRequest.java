package org.dcache.pool.nearline.spi;

import com.google.common.util.concurrent.ListenableFuture;
import java.io.File;
import java.net.URI;
import java.util.Set;
import org.dcache.util.Checksum;
import org.dcache.vehicles.FileAttributes;

/** Declaration compatible with dCache's {@code StageRequest} (dcache-nearline-spi). */
public interface StageRequest extends NearlineRequest<Set<Checksum>> {
    @Deprecated
    File getFile();

    URI getReplicaUri();

    FileAttributes getFileAttributes();

    ListenableFuture<Void> allocate();
}
