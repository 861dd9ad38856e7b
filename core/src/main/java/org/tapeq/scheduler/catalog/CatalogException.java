package org.tapeq.scheduler.catalog;

/**
 * A catalog operation failed; the transaction it ran in was rolled back, so nothing of it is recorded. The
 * message names the operation and the file or cartridge it concerned.
 */
public class CatalogException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CatalogException(String message) {
        super(message);
    }

    public CatalogException(String message, Throwable cause) {
        super(message, cause);
    }
}
