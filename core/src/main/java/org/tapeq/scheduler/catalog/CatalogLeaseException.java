package org.tapeq.scheduler.catalog;

/**
 * The site's catalog lease forbids what was asked: at start, another process holds a live lease (a second
 * daemon must not share the catalog); later, the lease was taken over and this process's write is refused
 * (fencing). Nothing of the operation is recorded; retrying does not help. The message names the site and
 * the holder.
 */
public class CatalogLeaseException extends CatalogException {
    private static final long serialVersionUID = 1L;

    public CatalogLeaseException(String message) {
        super(message);
    }
}
