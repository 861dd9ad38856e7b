package org.tapeq.provider;

import diskCacheV111.util.PnfsId;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Collections;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.dcache.namespace.FileAttribute;
import org.dcache.pool.nearline.spi.StageRequest;
import org.dcache.util.Checksum;
import org.dcache.util.ChecksumType;
import org.dcache.vehicles.FileAttributes;
import org.tapeq.protocol.ProtocolException;
import org.tapeq.protocol.ProtocolFiles;
import org.tapeq.protocol.ReturnCodes;
import org.tapeq.protocol.StageChecksums;

/**
 * A stage. After activation (and, without late allocation, allocation) it writes
 * {@code request/<pnfsid>} unless {@code in/<pnfsid>} is already complete (a file staged before a pool
 * restart is used, not staged twice). It then waits for {@code in/<pnfsid>} to reach the file's size
 * (allocating space when the first bytes arrive, with late allocation), or for an error file. A complete
 * file is moved into the pool once it has kept its size for the grace period, or at once when the daemon
 * delivered a checksum file, which a tapeq daemon writes before it renames the data into place.
 * Checksums from that file are checked against those dCache knows and returned to dCache.
 */
final class StageTask extends Task {
    StageTask(ProviderRuntime rt, StageRequest request, PnfsId pnfsId) {
        super(rt, request, pnfsId);
    }

    private StageRequest stage() {
        return (StageRequest) request;
    }

    @Override
    String kind() {
        return "stage";
    }

    @Override
    void begin() {
        await(stage().activate(), ACTIVATED);
    }

    private void allocate() {
        setFlag(ALLOCATING);
        await(stage().allocate(), ALLOCATED);
    }

    @Override
    void advance(int f) throws IOException {
        if ((f & ACTIVATED) == 0 || ((f & ALLOCATING) != 0 && (f & ALLOCATED) == 0)) {
            return; // waiting for dCache
        }
        if ((f & REQUEST_WRITTEN) == 0) {
            if (!rt.config().lateAllocate() && (f & ALLOCATED) == 0) {
                allocate();
                return;
            }
            long staged = stagedSize();
            if (staged != stage().getFileAttributes().getSize()) {
                RequestFiles.writeStage(this, stage().getFileAttributes());
                if (staged < 0) {
                    return; // no file yet: the daemon's answer to this new request will signal this task
                }
                // a partial file (an adopted request an ENDIT daemon is still writing): watch it now
            }
        }
        checkArrival();
    }

    /**
     * Size of the file at in/, -1 if there is none. Cheap on the common path (no file): one stat and no
     * exception; {@link #checkArrival()} looks closer (links, file type) before anything is delivered.
     */
    private long stagedSize() {
        try {
            BasicFileAttributes a = rt.held.in().attributes(name());
            return a.isRegularFile() ? a.size() : 0;
        } catch (IOException e) {
            return -1;
        }
    }

    private void checkArrival() throws IOException {
        Path error = rt.directory.errorFile(name());
        if (has(REQUEST_WRITTEN) && exists(error)) {
            endWithErrorFile(error);
            return;
        }
        Path in = rt.directory.inFile(name());
        BasicFileAttributes staged;
        try {
            staged = rt.held.in().attributes(name());
        } catch (NoSuchFileException e) {
            rt.polled.remove(this);
            notBefore = 0;
            return;
        }
        if (!staged.isRegularFile()) {
            deleteQuietly(in);
            endWithdrawn(Ending.failed(ReturnCodes.FAILED, in + " is not a regular file (removed)"));
            return;
        }
        if (!has(ALLOCATED)) {
            allocate(); // late allocation: the data is arriving
            return;
        }
        long expected = stage().getFileAttributes().getSize();
        if (staged.size() < expected) {
            rt.polled.add(this); // still being written; no event will say when it is complete
            notBefore = 0;
        } else if (staged.size() > expected) {
            deleteQuietly(in);
            deleteQuietly(rt.directory.checksumFile(name()));
            endWithdrawn(Ending.failed(ReturnCodes.DATA_MISMATCH, in + " has " + staged.size()
                    + " bytes, more than the " + expected + " expected (removed)"));
        } else {
            rt.polled.remove(this);
            deliverWhenSettled();
        }
    }

    private void deliverWhenSettled() {
        long grace = rt.config().gracePeriod().toMillis();
        long now = rt.clock.millis();
        if (grace == 0 || exists(rt.directory.checksumFile(name())) || (notBefore != 0 && now >= notBefore)) {
            deliver();
        } else if (notBefore == 0) {
            notBefore = now + grace;
            rt.timer.schedule(this::signal, grace, TimeUnit.MILLISECONDS);
        }
    }

    private void deliver() {
        if (!claim()) {
            return;
        }
        Path in = rt.directory.inFile(name());
        Path checksumFile = rt.directory.checksumFile(name());
        Path replica = Path.of(stage().getReplicaUri());
        Set<Checksum> checksums;
        try {
            checksums = readChecksums(checksumFile);
        } catch (ProtocolException e) {
            discardStaged();
            withdraw();
            settle(Ending.failed(ReturnCodes.FAILED, e.getMessage()));
            return;
        } catch (IOException e) {
            withdraw();
            settle(Ending.failed(ReturnCodes.FAILED, "cannot read " + checksumFile + ": " + e));
            return;
        }
        String mismatch = contradiction(checksums, stage().getFileAttributes());
        if (mismatch != null) {
            discardStaged();
            withdraw();
            settle(Ending.failed(ReturnCodes.DATA_MISMATCH, mismatch));
            return;
        }
        deleteQuietly(rt.directory.requestFile(name()));
        try {
            rt.held.in().moveOut(name(), replica);
        } catch (IOException e) {
            withdraw();
            settle(Ending.failed(ReturnCodes.FAILED, "cannot move " + in + " to the replica " + replica + ": " + e));
            return;
        }
        deleteQuietly(checksumFile);
        settle(Ending.completed(checksums));
    }

    private Set<Checksum> readChecksums(Path file) throws IOException {
        byte[] content;
        try {
            content = rt.held.in().readSmall(file.getFileName().toString(), ProtocolFiles.MAX_PROTOCOL_FILE_SIZE);
        } catch (NoSuchFileException e) {
            return Collections.emptySet(); // an ENDIT daemon: dCache computes or trusts checksums itself
        }
        Set<Checksum> checksums = new HashSet<>();
        for (Map.Entry<String, String> e : StageChecksums.parse(file.toString(), content).entrySet()) {
            try {
                checksums.add(new Checksum(ChecksumType.getChecksumType(e.getKey()), e.getValue()));
            } catch (IllegalArgumentException bad) {
                throw new ProtocolException(file.toString(), "checksum " + e.getKey() + ":" + e.getValue()
                        + " is not one dCache knows (" + bad.getMessage() + ")");
            }
        }
        return checksums;
    }

    /** Why the staged checksums contradict those dCache knows, or null if they agree or cannot be compared. */
    private String contradiction(Set<Checksum> staged, FileAttributes attributes) {
        if (staged.isEmpty() || !attributes.isDefined(FileAttribute.CHECKSUM)) {
            return null;
        }
        for (Checksum known : attributes.getChecksums()) {
            for (Checksum found : staged) {
                if (found.getType() == known.getType() && !found.getValue().equals(known.getValue())) {
                    return "checksum mismatch for " + name() + ": the tape copy has "
                            + RequestFiles.typeName(found.getType()) + ":" + found.getValue() + ", dCache knows "
                            + RequestFiles.typeName(known.getType()) + ":" + known.getValue()
                            + " (staged file removed)";
                }
            }
        }
        return null;
    }

    private void discardStaged() {
        deleteQuietly(rt.directory.inFile(name()));
        deleteQuietly(rt.directory.checksumFile(name()));
    }

    @Override
    void cancelNow() {
        cancelWithdrawn(); // a staged file is left in in/: a new request for it uses it instead of staging again
    }

    @Override
    void withdraw() {
        if (has(REQUEST_WRITTEN)) {
            Path error = rt.directory.errorFile(name());
            if (exists(error)) {
                discardStaged(); // the daemon gave up on this file: whatever is in in/ is not the file
                deleteQuietly(error);
            }
            deleteQuietly(rt.directory.requestFile(name()));
        }
    }
}
