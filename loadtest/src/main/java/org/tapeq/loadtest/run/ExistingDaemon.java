package org.tapeq.loadtest.run;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.tapeq.protocol.PnfsIds;
import org.tapeq.protocol.RequestDirectory;

/**
 * A daemon already serving a request directory (tapeq or ENDIT): the harness knows only the directory. Queue
 * depth is the number of request files in {@code request/}; mounts are not known.
 */
public final class ExistingDaemon implements Target {

    private final RequestDirectory dir;
    private final double speed;

    public ExistingDaemon(Path requestDirectory, double speed) throws IOException {
        this.dir = RequestDirectory.at(requestDirectory);
        if (!dir.problems().isEmpty()) {
            throw new IOException("not a usable request directory: " + String.join("; ", dir.problems()));
        }
        this.speed = speed;
    }

    @Override
    public Path requestDirectory() {
        return dir.base();
    }

    @Override
    public double speed() {
        return speed;
    }

    @Override
    public Probe probe() throws IOException {
        long n = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir.requestDir())) {
            for (Path p : files) {
                if (PnfsIds.isPnfsId(p.getFileName().toString())) {
                    n++;
                }
            }
        }
        return new Probe(n, -1);
    }

    @Override
    public Map<String, Long> mountsPerCartridge() {
        return Map.of();
    }

    @Override
    public String describe() {
        return "a running daemon serving " + dir.base() + " (mounts not visible to the harness)";
    }

    @Override
    public void close() {
        // not ours to stop
    }
}
