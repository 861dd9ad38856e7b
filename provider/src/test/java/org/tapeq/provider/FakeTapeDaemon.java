package org.tapeq.provider;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.Adler32;
import org.tapeq.protocol.AtomicFiles;
import org.tapeq.protocol.PnfsIds;
import org.tapeq.protocol.Request;
import org.tapeq.protocol.RequestCodec;
import org.tapeq.protocol.RequestDirectory;
import org.tapeq.protocol.StageChecksums;

/**
 * The daemon side of the request directory for tests: answers exactly as a daemon would, by hand or in a
 * serving loop. "Tape" is a map of pnfsid to bytes.
 */
final class FakeTapeDaemon implements AutoCloseable {
    final RequestDirectory dir;
    final Map<String, byte[]> tape = new ConcurrentHashMap<>();
    final Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();
    private volatile Thread server;

    FakeTapeDaemon(RequestDirectory dir) {
        this.dir = dir;
    }

    Request request(String id) throws IOException {
        return RequestCodec.read(dir.requestFile(id));
    }

    /** Copies out/<id> to tape and removes the link: a successful flush. */
    void archive(String id) throws IOException {
        tape.put(id, Files.readAllBytes(dir.outLink(id)));
        Files.delete(dir.outLink(id));
    }

    /** A tapeq daemon's delivery: checksum file first, then the data renamed into place. */
    void deliver(String id, byte[] data, boolean withChecksum) throws IOException {
        if (withChecksum) {
            AtomicFiles.write(dir.checksumFile(id), StageChecksums.format(Map.of("adler32", adler32(data))));
        }
        AtomicFiles.write(dir.inFile(id), data);
        deliveries.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
    }

    /** An ENDIT daemon's delivery: the data written in place, here only the first {@code n} bytes. */
    void writeInPlace(String id, byte[] data, int n) throws IOException {
        try (OutputStream out = Files.newOutputStream(dir.inFile(id), StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            out.write(data, 0, n);
        }
    }

    void writeError(String id, String content) throws IOException {
        AtomicFiles.write(dir.errorFile(id), content.getBytes(StandardCharsets.UTF_8));
    }

    static String adler32(byte[] data) {
        Adler32 a = new Adler32();
        a.update(data);
        return String.format("%08x", a.getValue());
    }

    /** Serves every request it finds until closed: flushes go to tape, stages come from tape. */
    void serve() {
        server = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                try {
                    serveOnce();
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    return;
                } catch (IOException e) {
                    // a request vanished while being served (cancelled): take the next one
                }
            }
        }, "fake-tape-daemon");
        server.setDaemon(true);
        server.start();
    }

    private void serveOnce() throws IOException {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir.requestDir())) {
            for (Path entry : entries) {
                String id = entry.getFileName().toString();
                if (!PnfsIds.isPnfsId(id)) {
                    continue;
                }
                try {
                    // in/ is checked before the request is read: the provider removes the request before it
                    // moves the staged file out, so a request still readable after in/ was found empty wants
                    // the file. The other order would stage again a file the provider took between the two.
                    boolean staged = Files.exists(dir.inFile(id));
                    Request request = RequestCodec.read(entry);
                    if (request.action() == Request.Action.MIGRATE) {
                        if (Files.exists(dir.outLink(id))) {
                            archive(id);
                        }
                    } else if (!staged && tape.containsKey(id)) {
                        deliver(id, tape.get(id), true);
                    }
                } catch (NoSuchFileException e) {
                    // cancelled meanwhile
                }
            }
        }
    }

    @Override
    public void close() {
        Thread t = server;
        if (t != null) {
            t.interrupt();
            try {
                t.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
