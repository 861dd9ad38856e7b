package org.tapeq.mover;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.function.LongConsumer;
import java.util.regex.Pattern;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.mover.proto.Fence;

/**
 * A mover's fencing rule: it remembers the newest site lease epoch any scheduler has shown it and refuses every
 * command from an older one, so a deposed scheduler (partitioned, paused, killed and back) can neither write nor
 * move a cartridge once its successor has spoken to this mover. The newest epoch is kept in a file of the mover's
 * state directory with the site it was seen for ({@code "SITE EPOCH"}), so a restarted mover still refuses the
 * deposed scheduler, and a mover configured for another site refuses to start on it (an epoch of one site says
 * nothing of another's schedulers). A file of the first format, the epoch alone, is read as before and gets the
 * site at the next rise. Any thread.
 *
 * <p>Design notes. A higher epoch is written to a temporary file, forced to disk, renamed over the old file
 * atomically and the directory forced, all before the command that carries it is admitted: after a crash the file
 * holds the epoch of every command ever admitted or a newer one. Raising the epoch is serialised (synchronized);
 * an epoch equal to the newest is admitted without a write. The write blocks the calling gRPC thread, never the
 * library's loop; it happens once per new lease epoch, so rarely.
 */
public final class EpochFence {

    private static final Logger LOG = LoggerFactory.getLogger(EpochFence.class);
    /** The file in the mover's state directory that holds the site and the newest epoch, in decimal. */
    public static final String FILE = "fence-epoch";
    /**
     * The site names the file keeps as they are: it is written as US-ASCII "SITE EPOCH" and read back split at
     * blanks, so a name with a blank or another character would fail the next start.
     */
    static final Pattern SITE_FORMAT = Pattern.compile("[\\x21-\\x7E]+");

    private final String mover;
    private final String site;
    private final Path file;
    private volatile long newest;
    /** Told each new newest epoch, right after it is saved (the mover stops the older epochs' commands). */
    private volatile LongConsumer risen = e -> { };

    private EpochFence(String mover, String site, Path file, long newest) {
        this.mover = mover;
        this.site = site;
        this.file = file;
        this.newest = newest;
    }

    /**
     * The fence of mover {@code mover} of site {@code site} kept in {@code stateDir}: the epoch saved there, or 0
     * when the file does not exist yet (a first start). A file that cannot be read, does not hold an epoch, or was
     * written for another site fails the start, naming it; so does a site name that the file would not keep as
     * it is ({@link #SITE_FORMAT}).
     */
    public static EpochFence open(String mover, String site, Path stateDir) throws IOException {
        Path file = stateDir.resolve(FILE);
        if (!SITE_FORMAT.matcher(site).matches()) {
            throw new IllegalArgumentException("mover " + mover + ": site name '" + site + "' cannot be kept in " + file
                    + " with the fencing epoch: use printable US-ASCII characters without blanks (mover.site)");
        }
        String text;
        try {
            text = Files.readString(file, StandardCharsets.US_ASCII).strip();
        } catch (NoSuchFileException e) {
            LOG.info("Mover {}: no fencing epoch saved yet in {}: first start, epoch 0", mover, file);
            return new EpochFence(mover, site, file, 0);
        } catch (IOException e) {
            throw new IOException(file + ": cannot read the mover's fencing epoch: " + e.getMessage(), e);
        }
        String[] fields = text.split("\\s+");
        if (fields.length == 2 && !fields[0].equals(site)) {
            throw new IOException(file + ": fencing epoch written for site '" + fields[0] + "', but this mover serves"
                    + " site '" + site + "' (mover.site): the epoch of another site's schedulers says nothing of this"
                    + " one's; give this mover a state directory of its own, or remove the file if the mover has"
                    + " really moved to site '" + site + "'");
        }
        if (fields.length > 2) {
            throw new IOException(file + ": corrupt fencing epoch \"" + abbreviate(text)
                    + "\" (SITE EPOCH expected); the mover cannot know which scheduler to refuse");
        }
        long epoch;
        try {
            epoch = Long.parseLong(fields[fields.length - 1]);
        } catch (NumberFormatException e) {
            throw new IOException(file + ": corrupt fencing epoch \"" + abbreviate(text)
                    + "\" (SITE EPOCH, or the epoch alone, expected); the mover cannot know which scheduler to "
                    + "refuse", e);
        }
        if (epoch < 0) {
            throw new IOException(file + ": corrupt fencing epoch " + epoch + " (negative)");
        }
        LOG.info("Mover {}: fencing epoch {} of site '{}' from {}{}", mover, epoch, site, file,
                fields.length == 1 ? " (a file without its site: it gets it at the next new epoch)" : "");
        return new EpochFence(mover, site, file, epoch);
    }

    /** Sets what is told each rise of the newest epoch, under the fence's lock, after the new epoch is saved. */
    void onRise(LongConsumer listener) {
        risen = listener;
    }

    /** The newest epoch seen, 0 before any command. */
    public long newest() {
        return newest;
    }

    /**
     * Admits {@code what} from {@code fence} (saving its epoch first if it is newer), or returns why it is refused:
     * an epoch below 1 or below the newest seen, or a newer epoch that could not be saved.
     */
    public String refusal(Fence fence, String what) {
        long epoch = fence.getEpoch();
        if (epoch < 1) {
            return "mover " + mover + " refuses " + what + " from scheduler '" + fence.getScheduler()
                    + "': it carries no site lease epoch";
        }
        long seen = newest;
        if (epoch == seen) {
            return null;
        }
        synchronized (this) {
            seen = newest;
            if (epoch < seen) {
                return "mover " + mover + " refuses " + what + " from scheduler '" + fence.getScheduler()
                        + "' at lease epoch " + epoch + ": epoch " + seen + " has taken the site over (fenced)";
            }
            if (epoch > seen) {
                try {
                    save(epoch);
                } catch (IOException | UncheckedIOException e) {
                    LOG.error("Mover {}: cannot save fencing epoch {} to {}: {}", mover, epoch, file, e.toString());
                    return "mover " + mover + " refuses " + what + " from scheduler '" + fence.getScheduler()
                            + "' at lease epoch " + epoch + ": cannot save the epoch to " + file + ": " + e;
                }
                newest = epoch;
                LOG.info("Mover {}: scheduler '{}' speaks with lease epoch {} (was {}); older epochs are refused",
                        mover, fence.getScheduler(), epoch, seen);
                risen.accept(epoch);
            }
            return null;
        }
    }

    private void save(long epoch) throws IOException {
        Path tmp = file.resolveSibling(FILE + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer bytes = ByteBuffer.wrap((site + " " + epoch + "\n").getBytes(StandardCharsets.US_ASCII));
            while (bytes.hasRemaining()) {
                ch.write(bytes);
            }
            ch.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel dir = FileChannel.open(file.getParent(), StandardOpenOption.READ)) {
            dir.force(true);
        }
    }

    private static String abbreviate(String s) {
        return s.length() <= 40 ? s : s.substring(0, 40) + "...";
    }
}
