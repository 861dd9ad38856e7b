package org.tapeq.poolemulator;

import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.ListenableFuture;
import com.google.common.util.concurrent.SettableFuture;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Set;
import org.dcache.namespace.FileAttribute;
import org.dcache.pool.nearline.spi.StageRequest;
import org.dcache.util.Checksum;
import org.dcache.vehicles.FileAttributes;

/**
 * A stage as a pool makes it. The plugin must allocate space before completing, the replica must then be at
 * {@link #getReplicaUri()} with the file's size, and the returned checksums must not contradict those the
 * namespace knows (dCache's post-restore checksum policy).
 */
public final class EmulatedStageRequest extends EmulatedFileRequest<Set<Checksum>> implements StageRequest {
    private volatile boolean allocated;

    EmulatedStageRequest(PoolEmulator pool, FileAttributes attributes, long timeoutMillis) {
        super(pool, attributes, timeoutMillis);
    }

    @Override
    String kind() {
        return "stage";
    }

    public boolean isAllocated() {
        return allocated;
    }

    @Override
    public ListenableFuture<Void> allocate() {
        if (!isActivated()) {
            pool.violation("stage " + getId() + " allocated before activation");
        }
        switch (pool.allocationMode()) {
            case NO_SPACE:
                return Futures.immediateFailedFuture(new IOException("pool: no space to allocate "
                        + attributes.getSize() + " bytes (fault switch)"));
            case HOLD:
                SettableFuture<Void> held = SettableFuture.create();
                pool.hold(held);
                held.addListener(() -> allocated = !held.isCancelled(), Runnable::run);
                return held;
            default:
                allocated = true;
                return Futures.immediateVoidFuture();
        }
    }

    @Override
    String checkResult(Set<Checksum> checksums) {
        if (checksums == null) {
            return "stage completed with a null checksum set (dCache needs an empty set)";
        }
        if (!allocated) {
            return "stage completed without allocating space";
        }
        Path replica = Path.of(getReplicaUri());
        try {
            if (!Files.isRegularFile(replica, LinkOption.NOFOLLOW_LINKS)) {
                return "stage completed but no replica file is at " + replica;
            }
            long size = Files.size(replica);
            if (size != attributes.getSize()) {
                return "stage completed but the replica has " + size + " bytes, expected " + attributes.getSize();
            }
        } catch (IOException e) {
            return "stage completed but the replica cannot be read: " + e;
        }
        if (attributes.isDefined(FileAttribute.CHECKSUM)) {
            for (Checksum returned : checksums) {
                for (Checksum known : attributes.getChecksums()) {
                    if (known.getType() == returned.getType() && !known.equals(returned)) {
                        return "returned checksum " + returned + " contradicts the namespace's " + known;
                    }
                }
            }
        }
        return null;
    }
}
