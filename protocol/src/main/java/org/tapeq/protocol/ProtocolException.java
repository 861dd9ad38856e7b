package org.tapeq.protocol;

import java.io.IOException;
import java.nio.file.Path;

/** A protocol file that cannot be accepted; the message names the file and the reason. */
public class ProtocolException extends IOException {
    private static final long serialVersionUID = 1L;

    private final String file;
    private final String reason;

    public ProtocolException(String file, String reason) {
        this(file, reason, null);
    }

    public ProtocolException(String file, String reason, Throwable cause) {
        super(file + ": " + reason, cause);
        this.file = file;
        this.reason = reason;
    }

    public ProtocolException(Path file, String reason, Throwable cause) {
        this(String.valueOf(file), reason, cause);
    }

    /** The file the problem was found in, as given by the caller. */
    public String file() {
        return file;
    }

    /** Why the file was refused, without the file name. */
    public String reason() {
        return reason;
    }
}
