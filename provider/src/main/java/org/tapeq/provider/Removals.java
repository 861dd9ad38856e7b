package org.tapeq.provider;

import com.google.common.util.concurrent.ListenableFuture;
import com.google.common.util.concurrent.MoreExecutors;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;
import org.dcache.pool.nearline.spi.RemoveRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.protocol.PnfsIds;

/**
 * Removes: each becomes {@code trash/<bfid>} holding the URI, written atomically, and completes at once;
 * the daemon deletes the tape copies in batches. Removes are not tracked in flight, so cancelling one is a
 * no-op, as for ENDIT.
 */
final class Removals {
    private static final Logger LOG = LoggerFactory.getLogger(Removals.class);

    private Removals() {
    }

    static void submit(ProviderRuntime rt, RemoveRequest request) {
        ListenableFuture<Void> activation;
        try {
            activation = request.activate();
        } catch (RuntimeException e) {
            request.failed(e);
            return;
        }
        activation.addListener(() -> rt.io.execute(() -> remove(rt, request, activation)),
                MoreExecutors.directExecutor());
    }

    private static void remove(ProviderRuntime rt, RemoveRequest request, ListenableFuture<Void> activation) {
        URI uri = request.getUri();
        try {
            activation.get();
            String bfid = bfid(uri);
            rt.held.trash().write(bfid, uri.toASCIIString().getBytes(StandardCharsets.US_ASCII), false);
            LOG.debug("{} remove of {} queued", bfid, uri);
            request.completed(null);
        } catch (ExecutionException e) {
            request.failed(e.getCause() instanceof Exception ? (Exception) e.getCause() : e);
        } catch (IllegalArgumentException | IOException e) {
            LOG.info("remove of {} failed: {}", uri, e.getMessage());
            request.failed(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            request.failed(e);
        }
    }

    /** The {@code bfid} query parameter of a tape location, checked to be a pnfsid. */
    static String bfid(URI uri) {
        String query = uri.getQuery();
        if (query == null || query.isEmpty()) {
            throw new IllegalArgumentException("URI lacks query part: " + uri);
        }
        String bfid = null;
        for (String parameter : query.split("&")) {
            if (parameter.startsWith("bfid=")) {
                if (bfid != null) {
                    throw new IllegalArgumentException("Query part has more than one bfid parameter: " + uri);
                }
                bfid = parameter.substring("bfid=".length());
            }
        }
        if (bfid == null) {
            throw new IllegalArgumentException("Query part lacks bfid parameter: " + uri);
        }
        if (!PnfsIds.isPnfsId(bfid)) {
            throw new IllegalArgumentException("bfid '" + bfid + "' of " + uri + " is not a pnfsid");
        }
        return bfid;
    }
}
