package org.tapeq.scheduler.tape.sim;

import java.io.BufferedOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;

import org.tapeq.protocol.AtomicFiles;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.TapeFileSource;
import org.tapeq.scheduler.tape.WrittenFile;

/**
 * Keeps a simulated library's recorded data in a directory, or nothing at all (in-memory libraries).
 *
 * <p>Layout: {@code library.properties} (data mode and block size, checked on re-open), {@code drives.state}
 * (which cartridge is in which drive), and per cartridge a directory named by its barcode holding an append-only
 * {@code journal} and, in BYTES mode, one data file per tape file. Journal lines: {@code F <n> <bytes> <file>}
 * (tape file n appended), {@code T <n>} (tape files from n on lost: never flushed from a drive's buffer),
 * {@code L <bytes> <file>} (label written: everything before is erased) and {@code C} (calibrated). A data file
 * is complete and renamed into place before its journal line is written, so the journal is the commit point: a
 * crash leaves at most an unreferenced data file (deleted on the next open) or a torn last line (ignored). This
 * survives a process restart; it does not fsync, so it is not meant to survive power loss.
 *
 * <p>One process at a time: each process keeps the whole state in memory and appends to it, so a second one on
 * the same directory would append to the same cartridges and rewrite {@code drives.state} under the first
 * (two daemons on one library corrupted it). {@link #open} takes an exclusive lock on {@code library.lock}
 * (released by {@link #close} or when the process dies) and refuses the directory while another holds it.
 */
final class LibraryStore {

    private static final String PROPERTIES = "library.properties";
    static final String LOCK = "library.lock";
    private static final String DRIVES = "drives.state";
    private static final String JOURNAL = "journal";
    private static final String NO_FILE = "-";
    private static final int COPY_BUFFER = 1 << 20;

    /** A cartridge recorded as being in a drive. */
    record Loaded(String barcode, boolean ejected) {
    }

    private final Path dir;
    private final boolean keepBytes;
    /** Holds the directory's lock while open; null in memory. */
    private final FileChannel lock;

    private LibraryStore(Path dir, boolean keepBytes, FileChannel lock) {
        this.dir = dir;
        this.keepBytes = keepBytes;
        this.lock = lock;
    }

    static LibraryStore inMemory() {
        return new LibraryStore(null, false, null);
    }

    static LibraryStore open(Path dir, DataMode mode, int blockSize) throws IOException {
        Files.createDirectories(dir);
        FileChannel lock = lock(dir);
        try {
            return open(dir, mode, blockSize, lock);
        } catch (IOException | RuntimeException e) {
            lock.close();
            throw e;
        }
    }

    private static FileChannel lock(Path dir) throws IOException {
        FileChannel channel = FileChannel.open(dir.resolve(LOCK), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE);
        boolean locked = false;
        try {
            locked = channel.tryLock() != null;
        } catch (OverlappingFileLockException e) {
            locked = false; // held by this process: a library not closed
        } finally {
            if (!locked) {
                channel.close();
            }
        }
        if (!locked) {
            throw new IOException("simulated library " + dir + " is in use by another process (" + LOCK
                    + " is locked): one library directory serves one process at a time");
        }
        return channel;
    }

    private static LibraryStore open(Path dir, DataMode mode, int blockSize, FileChannel lock) throws IOException {
        Path file = dir.resolve(PROPERTIES);
        Properties expected = new Properties();
        expected.setProperty("format", "1");
        expected.setProperty("dataMode", mode.name());
        expected.setProperty("blockSize", Integer.toString(blockSize));
        if (Files.exists(file)) {
            Properties found = new Properties();
            try (var in = Files.newInputStream(file)) {
                found.load(in);
            }
            if (!found.equals(expected)) {
                throw new IOException(file + " was written for " + found + ", not " + expected);
            }
        } else {
            var out = new java.io.ByteArrayOutputStream();
            expected.store(out, "tapeq simulated library");
            AtomicFiles.write(file, out.toByteArray());
        }
        return new LibraryStore(dir, mode == DataMode.BYTES, lock);
    }

    /** Lets go of the directory's lock: another process (or library) may open it. */
    void close() throws IOException {
        if (lock != null) {
            lock.close();
        }
    }

    /** Whether anything is recorded in a directory (else everything lives in memory). */
    boolean keepsDirectory() {
        return dir != null;
    }

    boolean keepsBytes() {
        return keepBytes;
    }

    /** Replays the cartridge's journal into it, checks its data files and deletes unreferenced ones. */
    void load(SimCartridge cartridge) throws IOException {
        if (dir == null) {
            return;
        }
        Path cartridgeDir = dir.resolve(cartridge.barcode);
        Path journal = cartridgeDir.resolve(JOURNAL);
        if (!Files.exists(journal)) {
            deleteUnreferenced(cartridgeDir, Set.of());
            return;
        }
        List<String> lines = completeLines(journal);
        for (String line : lines) {
            replay(cartridge, journal, line);
        }
        if (cartridge.files.eodOffset() > cartridge.capacity) {
            throw new IOException(cartridge.barcode + " holds " + cartridge.files.eodOffset()
                    + " bytes, more than its capacity " + cartridge.capacity);
        }
        Set<String> referenced = new HashSet<>();
        for (int i = 0; i < cartridge.dataFiles.size(); i++) {
            String name = cartridge.dataFiles.get(i);
            if (name == null) {
                continue;
            }
            referenced.add(name);
            long size = Files.size(cartridgeDir.resolve(name));
            if (size != cartridge.files.bytes(i)) {
                throw new IOException(cartridgeDir.resolve(name) + " has " + size + " bytes, journal says "
                        + cartridge.files.bytes(i));
            }
        }
        deleteUnreferenced(cartridgeDir, referenced);
        int live = cartridge.files.count() + (cartridge.calibrated ? 1 : 0);
        if (lines.size() > live) {
            compact(cartridge, journal);
        }
    }

    private void replay(SimCartridge cartridge, Path journal, String line) throws IOException {
        String[] f = line.split(" ");
        try {
            switch (f[0]) {
                case "C" -> cartridge.calibrated = true;
                case "F" -> {
                    int number = Integer.parseInt(f[1]);
                    if (number != cartridge.files.count()) {
                        throw new IOException("tape file " + number + " follows " + cartridge.files.count() + " files");
                    }
                    cartridge.files.append(Long.parseLong(f[2]));
                    cartridge.dataFiles.add(NO_FILE.equals(f[3]) ? null : f[3]);
                }
                case "T" -> {
                    int keep = Integer.parseInt(f[1]);
                    if (keep > cartridge.files.count()) {
                        throw new IOException("cut to " + keep + " of " + cartridge.files.count() + " tape files");
                    }
                    cartridge.files.truncate(keep);
                    cartridge.dataFiles.subList(keep, cartridge.dataFiles.size()).clear();
                }
                case "L" -> {
                    cartridge.files.clear();
                    cartridge.dataFiles.clear();
                    cartridge.files.append(Long.parseLong(f[1]));
                    cartridge.dataFiles.add(NO_FILE.equals(f[2]) ? null : f[2]);
                }
                default -> throw new IOException("unknown record");
            }
        } catch (RuntimeException e) {
            throw new IOException("corrupt line in " + journal + ": " + line, e);
        } catch (IOException e) {
            throw new IOException("corrupt line in " + journal + ": " + line + " (" + e.getMessage() + ")", e);
        }
    }

    /** The journal's lines; a torn last line (no newline: a crash while appending) is ignored. */
    private static List<String> completeLines(Path journal) throws IOException {
        String text = Files.readString(journal, StandardCharsets.UTF_8);
        List<String> lines = new ArrayList<>();
        int start = 0;
        int end;
        while ((end = text.indexOf('\n', start)) >= 0) {
            if (end > start) {
                lines.add(text.substring(start, end));
            }
            start = end + 1;
        }
        return lines;
    }

    private static void deleteUnreferenced(Path cartridgeDir, Set<String> referenced) throws IOException {
        if (!Files.isDirectory(cartridgeDir)) {
            return;
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(cartridgeDir, "*.{dat,tmp}")) {
            for (Path entry : entries) {
                if (!referenced.contains(entry.getFileName().toString())) {
                    Files.deleteIfExists(entry);
                }
            }
        }
    }

    private void compact(SimCartridge cartridge, Path journal) throws IOException {
        StringBuilder text = new StringBuilder();
        if (cartridge.calibrated) {
            text.append("C\n");
        }
        for (int i = 0; i < cartridge.files.count(); i++) {
            text.append(fileLine(i, cartridge.files.bytes(i), cartridge.dataFiles.get(i)));
        }
        AtomicFiles.write(journal, text.toString().getBytes(StandardCharsets.UTF_8));
    }

    private static String fileLine(int number, long bytes, String name) {
        return "F " + number + " " + bytes + " " + (name == null ? NO_FILE : name) + "\n";
    }

    /** Which cartridge each drive held when the library was last used. */
    Map<String, Loaded> loadDrives() throws IOException {
        Map<String, Loaded> loaded = new HashMap<>();
        if (dir == null || !Files.exists(dir.resolve(DRIVES))) {
            return loaded;
        }
        for (String line : completeLines(dir.resolve(DRIVES))) {
            String[] f = line.split(" ");
            if (f.length != 3) {
                throw new IOException("corrupt line in " + dir.resolve(DRIVES) + ": " + line);
            }
            loaded.put(f[0], new Loaded(f[1], Boolean.parseBoolean(f[2])));
        }
        return loaded;
    }

    void saveDrives(Collection<SimDrive> drives) throws IOException {
        if (dir == null) {
            return;
        }
        StringBuilder text = new StringBuilder();
        for (SimDrive drive : drives) {
            if (drive.cartridge != null) {
                text.append(drive.id).append(' ').append(drive.cartridge.barcode).append(' ').append(drive.ejected)
                        .append('\n');
            }
        }
        AtomicFiles.write(dir.resolve(DRIVES), text.toString().getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Copies a source into a new data file of the cartridge, keeping its first {@code keep} bytes, and returns the
     * file's name (null if bytes are not kept). The file is not part of the tape until committed. Any thread.
     *
     * @throws TapeFault SOURCE if the source fails or writes other than its announced length; DRIVE if the local
     *                   file cannot be written
     */
    String stage(String barcode, int fileNumber, TapeFileSource source, long keep) throws TapeFault {
        if (!keepBytes) {
            return null;
        }
        Path cartridgeDir = dir.resolve(barcode);
        Path tmp = null;
        try {
            Files.createDirectories(cartridgeDir);
            tmp = Files.createTempFile(cartridgeDir, "f" + fileNumber + "-", ".tmp");
            long written;
            try (KeepingStream out = new KeepingStream(Files.newOutputStream(tmp), keep)) {
                try {
                    source.writeTo(out);
                } catch (LocalWriteException e) {
                    throw e;
                } catch (IOException | RuntimeException e) {
                    throw new TapeFault(FaultKind.SOURCE, "source of tape file " + fileNumber + " for " + barcode
                            + " failed: " + e, e);
                }
                written = out.count;
            }
            if (written != source.length()) {
                throw new TapeFault(FaultKind.SOURCE, "source of tape file " + fileNumber + " for " + barcode
                        + " wrote " + written + " bytes, announced " + source.length());
            }
            String tmpName = tmp.getFileName().toString();
            String name = tmpName.substring(0, tmpName.length() - ".tmp".length()) + ".dat";
            Files.move(tmp, cartridgeDir.resolve(name), StandardCopyOption.ATOMIC_MOVE);
            tmp = null;
            return name;
        } catch (IOException e) {
            throw new TapeFault(FaultKind.DRIVE, "simulated drive could not store tape file " + fileNumber + " of "
                    + barcode + " in " + cartridgeDir + ": " + e, e);
        } finally {
            if (tmp != null) {
                deleteQuietly(tmp);
            }
        }
    }

    void commitAppend(SimCartridge cartridge, WrittenFile file, String name) throws IOException {
        appendJournal(cartridge.barcode, fileLine(file.fileNumber(), file.bytes(), name));
    }

    /** Records a new label (erasing everything after it) and deletes the data files it replaced. */
    void commitLabel(SimCartridge cartridge, long bytes, String name, List<String> replaced) throws IOException {
        appendJournal(cartridge.barcode, "L " + bytes + " " + (name == null ? NO_FILE : name) + "\n");
        for (String old : replaced) {
            if (old != null && !old.equals(name)) {
                deleteQuietly(dir.resolve(cartridge.barcode).resolve(old));
            }
        }
    }

    /**
     * Records that the tape files from {@code keep} on were lost (never flushed from a drive's buffer) and deletes
     * their data files, {@code lost}.
     */
    void commitTruncate(SimCartridge cartridge, int keep, List<String> lost) throws IOException {
        appendJournal(cartridge.barcode, "T " + keep + "\n");
        for (String old : lost) {
            if (old != null && dir != null) {
                deleteQuietly(dir.resolve(cartridge.barcode).resolve(old));
            }
        }
    }

    void markCalibrated(SimCartridge cartridge) throws IOException {
        appendJournal(cartridge.barcode, "C\n");
    }

    private void appendJournal(String barcode, String line) throws IOException {
        if (dir == null) {
            return;
        }
        Path cartridgeDir = dir.resolve(barcode);
        Files.createDirectories(cartridgeDir);
        Files.writeString(cartridgeDir.resolve(JOURNAL), line, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
    }

    /** Deletes a staged file that was not committed. */
    void discard(String barcode, String name) {
        if (dir != null && name != null) {
            deleteQuietly(dir.resolve(barcode).resolve(name));
        }
    }

    /**
     * Copies {@code length} bytes from {@code from} of a data file to {@code out}. Any thread.
     *
     * @throws TapeFault MEDIA if the local data file cannot be read; TARGET if {@code out} fails
     */
    void copyOut(String barcode, String name, long from, long length, OutputStream out) throws TapeFault {
        Path file = dir.resolve(barcode).resolve(name);
        ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(COPY_BUFFER, Math.max(1, length)));
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            long position = from;
            long left = length;
            while (left > 0) {
                buffer.clear();
                buffer.limit((int) Math.min(buffer.capacity(), left));
                int n = channel.read(buffer, position);
                if (n < 0) {
                    throw new IOException("unexpected end of " + file + " at " + position);
                }
                try {
                    out.write(buffer.array(), 0, n);
                } catch (IOException e) {
                    throw new TapeFault(FaultKind.TARGET, "writing to the read's sink failed: " + e, e);
                }
                position += n;
                left -= n;
            }
        } catch (NoSuchFileException e) {
            throw new TapeFault(FaultKind.MEDIA, "simulated tape data of " + barcode + " is missing: " + file, e);
        } catch (IOException e) {
            throw new TapeFault(FaultKind.MEDIA, "simulated tape data of " + barcode + " unreadable: " + e, e);
        }
    }

    private static void deleteQuietly(Path path) {
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            // Left behind; deleted as unreferenced on the next open.
        }
    }

    /** Failure of the local file under a source's writes, so it is not blamed on the source. */
    private static final class LocalWriteException extends IOException {
        LocalWriteException(IOException cause) {
            super(cause.getMessage(), cause);
        }
    }

    /** Counts everything written and passes on only the first {@code keep} bytes. */
    private static final class KeepingStream extends FilterOutputStream {
        private final long keep;
        long count;

        KeepingStream(OutputStream out, long keep) {
            super(new BufferedOutputStream(out, 1 << 16));
            this.keep = keep;
        }

        @Override
        public void write(int b) throws IOException {
            if (count < keep) {
                local(() -> out.write(b));
            }
            count++;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            Objects.checkFromIndexSize(off, len, b.length);
            long room = Math.max(0, keep - count);
            int n = (int) Math.min(len, room);
            if (n > 0) {
                local(() -> out.write(b, off, n));
            }
            count += len;
        }

        @Override
        public void flush() throws IOException {
            local(out::flush);
        }

        @Override
        public void close() throws IOException {
            local(out::close);
        }

        private interface Io {
            void run() throws IOException;
        }

        private static void local(Io io) throws IOException {
            try {
                io.run();
            } catch (IOException e) {
                throw new LocalWriteException(e);
            }
        }
    }
}
