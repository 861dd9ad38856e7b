package org.tapeq.scheduler.format;

import java.io.IOException;

/** Bytes read from tape are not in tapeq's format (not a tar archive, wrong first member, bad JSON, ...). */
public class TapeFormatException extends IOException {

    public TapeFormatException(String message) {
        super(message);
    }

    public TapeFormatException(String message, Throwable cause) {
        super(message, cause);
    }
}
