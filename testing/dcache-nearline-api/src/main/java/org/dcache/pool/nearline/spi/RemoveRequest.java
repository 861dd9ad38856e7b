package org.dcache.pool.nearline.spi;

import java.net.URI;

/** Declaration compatible with dCache's {@code RemoveRequest} (dcache-nearline-spi). */
public interface RemoveRequest extends NearlineRequest<Void> {
    URI getUri();
}
