package org.tapeq.loadtest.run;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.tapeq.config.ConfigException;
import org.tapeq.protocol.PnfsIds;

/**
 * The files a run wrote, as {@value #NAME} in its report folder: one line per flush of the measured phase that
 * completed, with what a stage request for it needs. An adt with {@code inputs} recalls them (docs/loadtest.md).
 *
 * <p>Comma-separated, a header line naming the columns (in any order, each once), no quoting: the harness's
 * values hold no commas. Reading checks every line; an error names the file, the line and the reason.
 */
public final class FileList {

    public static final String NAME = "files.csv";

    static final String PNFSID = "pnfsid";
    static final String SIZE = "size";
    static final String STORAGE_CLASS = "storage_class";
    static final String PATH = "path";
    static final String ADLER32 = "adler32";
    static final String EXPERIMENT = "experiment";
    static final String DATASET = "dataset";
    static final List<String> COLUMNS = List.of(PNFSID, SIZE, STORAGE_CLASS, PATH, ADLER32, EXPERIMENT, DATASET);

    private FileList() {
    }

    /**
     * One file: {@code experiment} is the name of the experiment that wrote it, {@code dataset} its dataset's index
     * in that experiment, {@code adler32} as dCache writes it ({@code %08x}).
     */
    public record Entry(String pnfsid, long size, String storageClass, String path, String adler32,
                        String experiment, int dataset) {

        /** The entry of a file of the plan, written by the experiment named {@code experiment}. */
        static Entry of(PlannedFile f, String experiment) {
            return new Entry(f.pnfsid(), f.size(), f.storageClass(), f.path(), f.adler32Hex(), experiment,
                    f.dataset());
        }
    }

    public static void write(Path file, List<Entry> entries) throws IOException {
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            w.write(String.join(",", COLUMNS));
            w.write('\n');
            for (Entry e : entries) {
                w.write(String.join(",", e.pnfsid(), Long.toString(e.size()), e.storageClass(), e.path(),
                        e.adler32(), e.experiment(), Integer.toString(e.dataset())));
                w.write('\n');
            }
        }
    }

    /**
     * Reads a list: {@code fileOrFolder} is the list, or a report folder holding {@value #NAME}.
     *
     * @throws ConfigException naming the file (and line) if it is missing, unreadable, malformed or empty
     */
    public static List<Entry> read(Path fileOrFolder) {
        Path file = file(fileOrFolder);
        try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String header = r.readLine();
            if (header == null || header.isBlank()) {
                throw new ConfigException(file + ": empty; expected the header " + String.join(",", COLUMNS));
            }
            Map<String, Integer> column = columns(file, header);
            List<Entry> entries = new ArrayList<>();
            Map<String, Integer> lineOf = new HashMap<>();
            int lineNumber = 1;
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                lineNumber++;
                if (line.isBlank()) {
                    continue;
                }
                Entry e = entry(file, lineNumber, line.split(",", -1), column);
                Integer first = lineOf.putIfAbsent(e.pnfsid(), lineNumber);
                if (first != null) {
                    throw new ConfigException(file + ": line " + lineNumber + ": pnfsid " + e.pnfsid()
                            + " is listed twice (first on line " + first + ")");
                }
                entries.add(e);
            }
            if (entries.isEmpty()) {
                throw new ConfigException(file + ": lists no files (only the header): the run it comes from "
                        + "completed no flush");
            }
            return entries;
        } catch (NoSuchFileException e) {
            throw new ConfigException(file + ": no such file (give the report folder of a dt run, or its " + NAME
                    + ")");
        } catch (IOException e) {
            throw new ConfigException(file + ": cannot be read: " + e.getMessage(), e);
        }
    }

    /** The list {@code fileOrFolder} names: itself, or {@value #NAME} in it if it is a folder. */
    public static Path file(Path fileOrFolder) {
        return Files.isDirectory(fileOrFolder) ? fileOrFolder.resolve(NAME) : fileOrFolder;
    }

    /** Column name to index; every column known, none twice, none missing. */
    private static Map<String, Integer> columns(Path file, String header) {
        String[] names = header.split(",", -1);
        Map<String, Integer> column = new HashMap<>();
        for (int i = 0; i < names.length; i++) {
            String name = names[i].strip();
            if (!COLUMNS.contains(name)) {
                throw new ConfigException(file + ": line 1: unknown column \"" + name + "\" (columns: "
                        + String.join(",", COLUMNS) + ")");
            }
            if (column.put(name, i) != null) {
                throw new ConfigException(file + ": line 1: column " + name + " is named twice");
            }
        }
        for (String name : COLUMNS) {
            if (!column.containsKey(name)) {
                throw new ConfigException(file + ": line 1: column " + name + " is missing (columns: "
                        + String.join(",", COLUMNS) + ")");
            }
        }
        return column;
    }

    private static Entry entry(Path file, int line, String[] fields, Map<String, Integer> column) {
        String where = file + ": line " + line + ": ";
        if (fields.length != column.size()) {
            throw new ConfigException(where + fields.length + " fields, not " + column.size()
                    + " (a value with a comma is not supported)");
        }
        String pnfsid = fields[column.get(PNFSID)].strip();
        if (!PnfsIds.isPnfsId(pnfsid)) {
            throw new ConfigException(where + PNFSID + " \"" + pnfsid + "\" is not a pnfsid (hexadecimal digits)");
        }
        long size = number(where, SIZE, fields[column.get(SIZE)].strip());
        String storageClass = fields[column.get(STORAGE_CLASS)].strip();
        if (storageClass.isEmpty()) {
            throw new ConfigException(where + STORAGE_CLASS + " is empty");
        }
        String path = fields[column.get(PATH)].strip();
        if (!path.startsWith("/")) {
            throw new ConfigException(where + PATH + " \"" + path + "\" is not an absolute dCache path");
        }
        String adler32 = fields[column.get(ADLER32)].strip().toLowerCase(Locale.ROOT);
        String zeros = PlannedFile.adler32Hex(size);
        if (!adler32.equals(zeros)) {
            throw new ConfigException(where + ADLER32 + " \"" + adler32 + "\" is not that of " + size + " zero bytes ("
                    + zeros + "): the harness writes zeros, so this is not a list a tapeq loadtest run wrote, or it "
                    + "was changed");
        }
        String experiment = fields[column.get(EXPERIMENT)].strip();
        if (experiment.isEmpty()) {
            throw new ConfigException(where + EXPERIMENT + " is empty");
        }
        long dataset = number(where, DATASET, fields[column.get(DATASET)].strip());
        if (dataset > Integer.MAX_VALUE) {
            throw new ConfigException(where + DATASET + " " + dataset + " is too large");
        }
        return new Entry(pnfsid, size, storageClass, path, adler32, experiment, (int) dataset);
    }

    /** A whole number, 0 or more. */
    private static long number(String where, String name, String value) {
        try {
            long n = Long.parseLong(value);
            if (n >= 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // the message below
        }
        throw new ConfigException(where + name + " \"" + value + "\" is not a whole number 0 or more");
    }
}
