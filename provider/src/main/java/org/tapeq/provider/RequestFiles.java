package org.tapeq.provider;

import diskCacheV111.vehicles.StorageInfo;
import java.io.IOException;
import java.util.Comparator;
import java.util.Locale;
import java.util.Set;
import org.dcache.namespace.FileAttribute;
import org.dcache.util.Checksum;
import org.dcache.util.ChecksumType;
import org.dcache.vehicles.FileAttributes;
import org.tapeq.protocol.Request;
import org.tapeq.protocol.RequestCodec;

/** Turns dCache requests into request files (docs/protocol.md), with tapeq's extension filled in. */
final class RequestFiles {
    /** dCache's StorageInfo key holding the file's path. */
    static final String PATH_KEY = "path";

    private RequestFiles() {
    }

    static void writeFlush(Task task, FileAttributes attributes, String path) throws IOException {
        Checksum checksum = preferredChecksum(attributes);
        Request request = Request.flush(attributes.getSize(), task.rt.clock.millis() / 1000,
                storageClass(attributes), path, checksum == null ? null : typeName(checksum.getType()),
                checksum == null ? null : checksum.getValue(), extension(task, attributes, path));
        write(task, request);
    }

    static void writeStage(Task task, FileAttributes attributes) throws IOException {
        String path = path(attributes);
        Checksum checksum = preferredChecksum(attributes);
        Request request = Request.stage(attributes.getSize(), task.rt.clock.millis() / 1000,
                storageClass(attributes), path, task.rt.pid, checksum == null ? null : typeName(checksum.getType()),
                checksum == null ? null : checksum.getValue(), extension(task, attributes, path));
        write(task, request);
    }

    private static void write(Task task, Request request) throws IOException {
        task.rt.held.request().write(task.name(), RequestCodec.toBytes(request), false);
        task.setFlag(Task.REQUEST_WRITTEN);
        task.rt.requestFilesWritten.increment();
    }

    private static Request.Extension extension(Task task, FileAttributes attributes, String path) {
        ProviderConfig config = task.rt.config();
        long deadline = task.request.getDeadline();
        StorageInfo info = attributes.isDefined(FileAttribute.STORAGEINFO) ? attributes.getStorageInfo() : null;
        return new Request.Extension(task.request.getId().toString(), config.priority(), config.activity(),
                config.colocation().hint(path, info), deadline == Long.MAX_VALUE ? 0 : deadline);
    }

    /** The file's dCache path from its storage info, or null. */
    static String path(FileAttributes attributes) {
        if (!attributes.isDefined(FileAttribute.STORAGEINFO)) {
            return null;
        }
        return attributes.getStorageInfo().getKey(PATH_KEY);
    }

    private static String storageClass(FileAttributes attributes) {
        return attributes.isDefined(FileAttribute.STORAGECLASS) ? attributes.getStorageClass() : null;
    }

    /** Adler32 if dCache knows it (what ENDIT sites use), else the checksum of the lowest type id. */
    static Checksum preferredChecksum(FileAttributes attributes) {
        if (!attributes.isDefined(FileAttribute.CHECKSUM)) {
            return null;
        }
        Set<Checksum> checksums = attributes.getChecksums();
        return checksums.stream().min(Comparator.comparingInt(c -> c.getType().getType())).orElse(null);
    }

    /** The protocol's name of a checksum type: dCache's name in lower case ({@code adler32}, {@code sha-1}). */
    static String typeName(ChecksumType type) {
        return type.getName().toLowerCase(Locale.ROOT);
    }
}
