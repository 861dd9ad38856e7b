package org.tapeq.protocol;

import java.util.Objects;

/**
 * One request file, {@code request/<pnfsid>}: the ENDIT fields plus tapeq's optional {@link Extension}.
 * ENDIT daemons read the ENDIT fields and ignore the rest; a request without an extension is what the
 * unmodified ENDIT provider writes. Immutable.
 */
public final class Request {

    /** ENDIT's {@code action} values. */
    public enum Action {
        /** A flush: the file behind {@code out/<pnfsid>} is to be written to tape. */
        MIGRATE("migrate"),
        /** A stage: the file is to be read from tape into {@code in/<pnfsid>}. */
        RECALL("recall");

        private final String wireName;

        Action(String wireName) {
            this.wireName = wireName;
        }

        public String wireName() {
            return wireName;
        }

        /** The action with this wire name, or null. */
        public static Action fromWireName(String name) {
            for (Action action : values()) {
                if (action.wireName.equals(name)) {
                    return action;
                }
            }
            return null;
        }
    }

    private final Action action;
    private final long fileSize;
    private final long time;
    private final String storageClass;
    private final String path;
    private final String checksumType;
    private final String checksumValue;
    /** The pool's pid, or {@link #NO_PID}: a primitive, as a daemon keeps millions of requests. */
    private final long parentPid;
    private final Extension extension;

    private static final long NO_PID = Long.MIN_VALUE;

    private Request(Action action, long fileSize, long time, String storageClass, String path,
            String checksumType, String checksumValue, Long parentPid, Extension extension) {
        this.action = Objects.requireNonNull(action, "action");
        if (fileSize < 0) {
            throw new IllegalArgumentException("file_size must not be negative: " + fileSize);
        }
        this.fileSize = fileSize;
        this.time = time;
        // A few storage classes are shared by millions of queued requests: one copy of each (docs/benchmarks.md).
        this.storageClass = storageClass == null ? null : storageClass.intern();
        this.path = path;
        this.checksumType = emptyToNull(checksumType);
        this.checksumValue = emptyToNull(checksumValue);
        this.parentPid = parentPid == null ? NO_PID : parentPid;
        this.extension = extension;
    }

    /**
     * A flush request. {@code checksumType} and {@code checksumValue} may be null (written as
     * {@code ""}, as ENDIT does); {@code extension} is null for a plain ENDIT request.
     */
    public static Request flush(long fileSize, long time, String storageClass, String path,
            String checksumType, String checksumValue, Extension extension) {
        return new Request(Action.MIGRATE, fileSize, time, storageClass, path, checksumType, checksumValue,
                null, extension);
    }

    /**
     * A stage request. {@code parentPid} is the pid of the pool's JVM (ENDIT's retriever drops requests
     * whose parent is gone). The checksum dCache knows, if given, lets the daemon verify before delivery.
     */
    public static Request stage(long fileSize, long time, String storageClass, String path, long parentPid,
            String checksumType, String checksumValue, Extension extension) {
        return new Request(Action.RECALL, fileSize, time, storageClass, path, checksumType, checksumValue,
                parentPid, extension);
    }

    static Request of(Action action, long fileSize, long time, String storageClass, String path,
            String checksumType, String checksumValue, Long parentPid, Extension extension) {
        return new Request(action, fileSize, time, storageClass, path, checksumType, checksumValue, parentPid,
                extension);
    }

    public Action action() {
        return action;
    }

    /** Size in bytes the file has in dCache. */
    public long fileSize() {
        return fileSize;
    }

    /** When the request was written, epoch seconds. */
    public long time() {
        return time;
    }

    /** dCache storage class such as {@code atlas:raw}, or null. */
    public String storageClass() {
        return storageClass;
    }

    /** The file's dCache path, or null when the pool did not know it. */
    public String path() {
        return path;
    }

    /** dCache checksum type name, e.g. {@code adler32}, or null. */
    public String checksumType() {
        return checksumType;
    }

    /** Hex checksum value, or null. */
    public String checksumValue() {
        return checksumValue;
    }

    /** pid of the requesting pool's JVM (stage only), or null. */
    public Long parentPid() {
        return parentPid == NO_PID ? null : parentPid;
    }

    /** tapeq's extension, or null for a plain ENDIT request. */
    public Extension extension() {
        return extension;
    }

    private static String emptyToNull(String s) {
        return s == null || s.isEmpty() ? null : s;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Request)) {
            return false;
        }
        Request r = (Request) o;
        return action == r.action && fileSize == r.fileSize && time == r.time
                && Objects.equals(storageClass, r.storageClass) && Objects.equals(path, r.path)
                && Objects.equals(checksumType, r.checksumType) && Objects.equals(checksumValue, r.checksumValue)
                && parentPid == r.parentPid && Objects.equals(extension, r.extension);
    }

    @Override
    public int hashCode() {
        return Objects.hash(action, fileSize, time, storageClass, path, checksumType, checksumValue, parentPid,
                extension);
    }

    @Override
    public String toString() {
        return action.wireName() + " size=" + fileSize + " class=" + storageClass + " path=" + path
                + (extension == null ? "" : " " + extension);
    }

    /**
     * tapeq's additions, kept under the JSON key {@code "tapeq"}: the dCache request id, a priority, an
     * activity name, a co-location key (dataset) and the deadline. Their presence also tells a tapeq daemon
     * that the provider understands error files for flushes and checksum files for stages.
     */
    public static final class Extension {
        /** Version of the extension this code writes. */
        public static final int VERSION = 1;

        private final int version;
        private final String requestId;
        private final int priority;
        private final String activity;
        private final String colocation;
        private final long deadline;

        /**
         * @param requestId dCache's request UUID as text, or null
         * @param priority higher is more urgent; 0 is normal
         * @param activity free-form activity such as {@code T0-export}, or null
         * @param colocation key of files to keep together on tape (a dataset), or null
         * @param deadline epoch milliseconds after which dCache gives up, or 0 for none
         */
        public Extension(String requestId, int priority, String activity, String colocation, long deadline) {
            this(VERSION, requestId, priority, activity, colocation, deadline);
        }

        Extension(int version, String requestId, int priority, String activity, String colocation,
                long deadline) {
            this.version = version;
            this.requestId = requestId;
            this.priority = priority;
            this.activity = activity;
            this.colocation = colocation;
            this.deadline = deadline;
        }

        public int version() {
            return version;
        }

        public String requestId() {
            return requestId;
        }

        public int priority() {
            return priority;
        }

        public String activity() {
            return activity;
        }

        public String colocation() {
            return colocation;
        }

        public long deadline() {
            return deadline;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Extension)) {
                return false;
            }
            Extension e = (Extension) o;
            return version == e.version && priority == e.priority && deadline == e.deadline
                    && Objects.equals(requestId, e.requestId) && Objects.equals(activity, e.activity)
                    && Objects.equals(colocation, e.colocation);
        }

        @Override
        public int hashCode() {
            return Objects.hash(version, requestId, priority, activity, colocation, deadline);
        }

        @Override
        public String toString() {
            return "tapeq{id=" + requestId + " priority=" + priority + " activity=" + activity + " colocation="
                    + colocation + " deadline=" + deadline + "}";
        }
    }
}
