package org.dcache.pool.nearline.spi;

import com.google.common.util.concurrent.ListenableFuture;
import java.io.File;
import java.net.URI;
import java.util.Set;
import org.dcache.vehicles.FileAttributes;

/** Declaration compatible with dCache's {@code FlushRequest} (dcache-nearline-spi). */
public interface FlushRequest extends NearlineRequest<Set<URI>> {
    @Deprecated
    File getFile();

    URI getReplicaUri();

    FileAttributes getFileAttributes();

    long getReplicaCreationTime();

    ListenableFuture<String> activateWithPath();
}
