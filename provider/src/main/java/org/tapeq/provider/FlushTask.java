package org.tapeq.provider;

import diskCacheV111.util.PnfsId;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Set;
import org.dcache.pool.nearline.spi.FlushRequest;
import org.dcache.vehicles.FileAttributes;
import org.tapeq.protocol.AtomicFiles;
import org.tapeq.protocol.ReturnCodes;

/**
 * A flush: after activation, check the replica against the namespace size, write {@code request/<pnfsid>},
 * hard-link {@code out/<pnfsid>} to the replica, then wait. The daemon removes the link once the file is on
 * tape (success) or writes {@code request/<pnfsid>.err} and leaves the link (failure).
 */
final class FlushTask extends Task {
    FlushTask(ProviderRuntime rt, FlushRequest request, PnfsId pnfsId) {
        super(rt, request, pnfsId);
    }

    private FlushRequest flush() {
        return (FlushRequest) request;
    }

    @Override
    String kind() {
        return "flush";
    }

    @Override
    void begin() {
        await(flush().activateWithPath(), ACTIVATED);
    }

    @Override
    void advance(int f) throws IOException {
        if ((f & ACTIVATED) == 0) {
            return;
        }
        if ((f & LINKED) == 0) {
            enterDirectory();
        } else {
            checkAnswer();
        }
    }

    private void enterDirectory() throws IOException {
        FileAttributes attributes = flush().getFileAttributes();
        String path = pending instanceof String ? (String) pending : RequestFiles.path(attributes);
        pending = null;
        Path replica = Path.of(flush().getReplicaUri());
        BasicFileAttributes replicaAttributes;
        try {
            replicaAttributes = Files.readAttributes(replica, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            endWithdrawn(Ending.failed(ReturnCodes.INVALID_REQUEST, "replica " + replica + " does not exist"));
            return;
        }
        if (!replicaAttributes.isRegularFile()) {
            endWithdrawn(Ending.failed(ReturnCodes.INVALID_REQUEST, "replica " + replica + " is not a regular file"));
            return;
        }
        if (replicaAttributes.size() != attributes.getSize()) {
            endWithdrawn(Ending.failed(ReturnCodes.DATA_MISMATCH, "replica " + replica + " has "
                    + replicaAttributes.size() + " bytes but the namespace says " + attributes.getSize()));
            return;
        }
        RequestFiles.writeFlush(this, attributes, path);
        if (rt.checkDirectory() != null) {
            return; // a link is made by path (Java has no linkat): never into a directory no longer served
        }
        link(rt.directory.outLink(name()), replica);
        mark = rt.generation;
        setFlag(LINKED);
    }

    /**
     * Hard-links {@code link} to {@code replica}; an existing link to another file is replaced atomically,
     * and a link that the daemon removes while this runs (it was serving an earlier request) is made again.
     */
    /** Tries to link when the daemon keeps removing the link under us; more than one retry is pathological. */
    private static final int LINK_ATTEMPTS = 3;

    private static void link(Path link, Path replica) throws IOException {
        for (int attempt = 1; ; attempt++) {
            try {
                Files.createLink(link, replica);
                return;
            } catch (FileAlreadyExistsException e) {
                try {
                    if (!Files.isSameFile(link, replica)) {
                        Path temporary = AtomicFiles.temporarySibling(link);
                        Files.createLink(temporary, replica);
                        Files.move(temporary, link, StandardCopyOption.ATOMIC_MOVE);
                    }
                    return;
                } catch (NoSuchFileException gone) {
                    if (attempt == LINK_ATTEMPTS) {
                        throw gone;
                    }
                }
            }
        }
    }

    private void checkAnswer() {
        Path error = rt.directory.errorFile(name());
        if (exists(error)) {
            endWithErrorFile(error);
        } else if (!exists(rt.directory.outLink(name()))) {
            complete();
        }
    }

    private void complete() {
        if (exists(rt.directory.errorFile(name()))) {
            return; // the daemon wrote an error file just now: the next step reports it
        }
        if (!exists(rt.directory.requestFile(name()))) {
            // Only this provider removes a flush's request file, and only after the flush ended. A link gone
            // together with it means the directory was removed or replaced (rm -r, a shared filesystem that
            // is no longer mounted), not that the daemon archived the file: never report that as on tape.
            endWithdrawn(Ending.failed(ReturnCodes.FAILED, "flush of " + name() + ": both "
                    + rt.directory.outLink(name()) + " and " + rt.directory.requestFile(name())
                    + " are gone; the request directory was removed or replaced, so the file is not known"
                    + " to be on tape"));
            return;
        }
        if (claim()) {
            deleteQuietly(rt.directory.requestFile(name()));
            settle(Ending.completed(Set.of(rt.flushUri(name()))));
        }
    }

    @Override
    void cancelNow() {
        if (has(LINKED) && !exists(rt.directory.outLink(name())) && !exists(rt.directory.errorFile(name()))) {
            complete(); // the file reached tape before the cancellation did: completion wins
        } else {
            cancelWithdrawn();
        }
    }

    @Override
    void withdraw() {
        if (has(LINKED)) {
            deleteQuietly(rt.directory.outLink(name()));
        }
        if (has(REQUEST_WRITTEN)) {
            deleteQuietly(rt.directory.requestFile(name()));
            deleteQuietly(rt.directory.errorFile(name()));
        }
    }
}
