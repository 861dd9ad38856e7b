package org.tapeq.scheduler.model;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Read one file back from tape. Immutable.
 *
 * <p>Design note: a daemon may hold ten million of these, so the target is either a fixed path or named on
 * demand by the caller's {@link Targets} from the id and pnfsid (a path object per request would be a sixth of
 * the daemon's heap); the fields, equality and hash are otherwise those of a plain record. It is not final for
 * one reason: the scheduler's queue entry of a stage extends it ({@link #StageRequest(StageRequest)}), so that
 * a queued stage is one object, not a request and an entry pointing at it.
 */
public non-sealed class StageRequest implements TapeRequest {

    /** Names the file each request of one caller writes its bytes to, when asked: the same path every time. */
    public interface Targets {
        Path of(long id, String pnfsid);
    }

    private final long id;
    private final String pnfsid;
    private final long size;
    private final String storageClass;
    private final String path;
    private final String group;
    private final String activity;
    private final int priority;
    private final long deadline;
    /** A {@link Path}, a {@link Targets}, or null. */
    private final Object target;
    private final RequestOrigin origin;

    /**
     * @param id          caller's id
     * @param pnfsid      the file
     * @param size        expected size, or -1 if unknown (the catalog's size is used and checked)
     * @param storageClass dCache storage class, informational
     * @param path        namespace path, informational
     * @param group       experiment for fair share
     * @param activity    activity label (e.g. {@code Express}), informational, may be null
     * @param priority    higher first, 0 normal
     * @param deadline    loop time by which the file should be staged, or 0 for none
     * @param target      where the bytes go (created or truncated), or null to discard them (size-only mode)
     * @param origin      where the request came from, handed back with its outcome
     */
    public StageRequest(long id, String pnfsid, long size, String storageClass, String path, String group,
                        String activity, int priority, long deadline, Path target, RequestOrigin origin) {
        this(id, pnfsid, size, storageClass, path, group, activity, priority, deadline, (Object) target, origin);
    }

    /** A request whose target {@code targets} names from its id and pnfsid. */
    public static StageRequest named(long id, String pnfsid, long size, String storageClass, String path, String group,
                                     String activity, int priority, long deadline, Targets targets,
                                     RequestOrigin origin) {
        return new StageRequest(id, pnfsid, size, storageClass, path, group, activity, priority, deadline,
                (Object) Objects.requireNonNull(targets, "targets"), origin);
    }

    /** A request with no particular origin. */
    public StageRequest(long id, String pnfsid, long size, String storageClass, String path, String group,
                        String activity, int priority, long deadline, Path target) {
        this(id, pnfsid, size, storageClass, path, group, activity, priority, deadline, target, RequestOrigin.NONE);
    }

    /**
     * The same fields as {@code r}, for a subclass that adds its own (the scheduler's queue entry): the new object
     * replaces {@code r}, which is not kept.
     */
    protected StageRequest(StageRequest r) {
        this(r.id, r.pnfsid, r.size, r.storageClass, r.path, r.group, r.activity, r.priority, r.deadline, r.target,
                r.origin);
    }

    private StageRequest(long id, String pnfsid, long size, String storageClass, String path, String group,
                         String activity, int priority, long deadline, Object target, RequestOrigin origin) {
        this.id = id;
        this.pnfsid = Objects.requireNonNull(pnfsid, "pnfsid");
        this.size = size;
        this.storageClass = storageClass;
        this.path = path;
        this.group = Objects.requireNonNull(group, "group");
        this.activity = activity;
        this.priority = priority;
        this.deadline = deadline;
        this.target = target;
        this.origin = Objects.requireNonNull(origin, "origin");
    }

    @Override
    public long id() {
        return id;
    }

    @Override
    public String pnfsid() {
        return pnfsid;
    }

    /** The size asked for, or -1 if unknown (a subclass may know it: the queue entry gives the catalog's). */
    public long size() {
        return size;
    }

    public String storageClass() {
        return storageClass;
    }

    public String path() {
        return path;
    }

    @Override
    public String group() {
        return group;
    }

    public String activity() {
        return activity;
    }

    public int priority() {
        return priority;
    }

    public long deadline() {
        return deadline;
    }

    /** Where the bytes go, or null to discard them. */
    public Path target() {
        return target instanceof Targets t ? t.of(id, pnfsid) : (Path) target;
    }

    @Override
    public RequestOrigin origin() {
        return origin;
    }

    /** Equal as a record would be: every field, the target as the path it names. */
    @Override
    public boolean equals(Object o) {
        return o instanceof StageRequest r && id == r.id && size == r.size && priority == r.priority
                && deadline == r.deadline && pnfsid.equals(r.pnfsid) && Objects.equals(storageClass, r.storageClass)
                && Objects.equals(path, r.path) && group.equals(r.group) && Objects.equals(activity, r.activity)
                && Objects.equals(target(), r.target()) && origin.equals(r.origin);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, pnfsid, size, storageClass, path, group, activity, priority, deadline, target(), origin);
    }

    @Override
    public String toString() {
        return "StageRequest[id=" + id + ", pnfsid=" + pnfsid + ", size=" + size + ", storageClass=" + storageClass
                + ", path=" + path + ", group=" + group + ", activity=" + activity + ", priority=" + priority
                + ", deadline=" + deadline + ", target=" + target() + ", origin=" + origin.name() + "]";
    }
}
