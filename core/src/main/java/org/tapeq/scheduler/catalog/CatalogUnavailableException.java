package org.tapeq.scheduler.catalog;

/**
 * A catalog operation failed because the database could not be reached (server down or restarting, connection
 * cut), not because of what was asked: nothing of it is recorded, and the same call may succeed once the
 * database is back. Callers that can wait retry it; the message names the operation and the cause.
 */
public class CatalogUnavailableException extends CatalogException {
    private static final long serialVersionUID = 1L;

    public CatalogUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
