package org.tapeq.config;

/** A configuration file that cannot be used; the message names the file and the key path at fault. */
public class ConfigException extends RuntimeException {

    public ConfigException(String message) {
        super(message);
    }

    public ConfigException(String message, Throwable cause) {
        super(message, cause);
    }
}
