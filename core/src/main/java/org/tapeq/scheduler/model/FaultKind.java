package org.tapeq.scheduler.model;

/** Classes of tape errors; each has its own reaction in the engine (docs/scheduler.md, "Faults"). */
public enum FaultKind {
    /** The drive failed (hardware, connection, timeout). Retry elsewhere; repeated errors take it out of service. */
    DRIVE,
    /**
     * The drive asks to be cleaned (TapeAlert "cleaning required"). It is taken out of service at once with that
     * reason, until an operator has cleaned it and puts it back ({@code tapeq drive up}).
     */
    CLEANING,
    /** The cartridge could not be read or written at some place. The cartridge becomes suspect (read-only). */
    MEDIA,
    /** The robot could not move a cartridge. Retried with backoff. */
    ROBOT,
    /** The cartridge is full. It is closed for writing and the data goes to another cartridge. */
    TAPE_FULL,
    /** The requested data is not where it should be on tape (no such tape file, short read). */
    NOT_FOUND,
    /** The data read or written does not have the expected checksum. */
    CHECKSUM,
    /** The cartridge label is missing or is not the expected one. The cartridge is never written. */
    LABEL,
    /** A file to be flushed is missing, unreadable or not the announced size. Not a tape problem. */
    SOURCE,
    /** The catalog could not record or answer (database error). Transient. */
    CATALOG,
    /** The target of a stage could not be written (disk full, permissions). Not a tape problem. */
    TARGET
}
