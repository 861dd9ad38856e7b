package org.tapeq.scheduler.engine.drive;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.model.TapeFault;

/**
 * One drive's INFO journal and its {@link DriveObserver}: every mount, unmount, read pass and written aggregate
 * is logged once with the cartridge, the drive, files, bytes and durations (per-file lines are DEBUG), and the
 * same events are told to the observer. Loop-confined, owned by its {@link DriveRunner}.
 *
 * <p>Durations are loop time: on a simulated library running faster than real time they are the library's.
 */
final class DriveLog {

    private static final Logger LOG = LoggerFactory.getLogger(DriveLog.class);

    private final DriveRunner drive;
    private final DriveObserver observer;
    private long mountStarted;
    private long mountedAt = -1;
    private long unmountStarted;
    private long passStarted = -1;
    private int passFiles;
    private long passBytes;
    private long writeStarted;
    private long readStarted;
    private long mountFiles;
    private long mountBytesRead;
    private long mountBytesWritten;

    DriveLog(DriveRunner drive, DriveObserver observer) {
        this.drive = drive;
        this.observer = observer;
        observer.drive(drive.id());
    }

    private long now() {
        return drive.context.loop().now();
    }

    void mountStarted() {
        mountStarted = now();
    }

    void mounted(String barcode) {
        long t = now();
        mountedAt = t;
        mountFiles = 0;
        mountBytesRead = 0;
        mountBytesWritten = 0;
        LOG.info("Drive {}: mounted {} in {}", drive.id(), barcode, seconds(t - mountStarted));
        observer.mounted(drive.id(), barcode, t - mountStarted);
    }

    void unmountStarted() {
        passEnded(drive.mounted());
        unmountStarted = now();
    }

    void unmounted(String barcode) {
        long t = now();
        long held = mountedAt < 0 ? 0 : t - mountedAt;
        LOG.info("Drive {}: unmounted {} in {} after {} in the drive ({} files, {} bytes read, {} bytes written)",
                drive.id(), barcode, seconds(t - unmountStarted), seconds(held), mountFiles, mountBytesRead,
                mountBytesWritten);
        observer.unmounted(drive.id(), barcode, t - unmountStarted, held);
        mountedAt = -1;
    }

    /** A read (after its locate) starts moving data. */
    void readStarted() {
        readStarted = now();
    }

    /** A read of {@code files} files, {@code bytes} from tape, ended; the pass goes on. */
    void read(int files, long bytes) {
        if (passStarted < 0) {
            passStarted = now();
        }
        passFiles += files;
        passBytes += bytes;
        mountFiles += files;
        mountBytesRead += bytes;
        observer.transferred(drive.id(), false, bytes, readStarted, now());
    }

    /** The read pass on {@code barcode} is over (or the cartridge leaves): one line for all its reads. */
    void passEnded(String barcode) {
        if (passStarted < 0) {
            return;
        }
        LOG.info("Drive {}: read pass on {} ended: {} files, {} bytes in {}", drive.id(), barcode, passFiles,
                passBytes, seconds(now() - passStarted));
        passStarted = -1;
        passFiles = 0;
        passBytes = 0;
    }

    void writeStarted() {
        writeStarted = now();
    }

    void written(String family, String dataset, String barcode, int tapeFile, int files, long bytes) {
        mountFiles += files;
        mountBytesWritten += bytes;
        LOG.info("Drive {}: wrote an aggregate of family {} (dataset {}) to {} tape file {}: {} files, {} bytes in {}",
                drive.id(), family, dataset, barcode, tapeFile, files, bytes, seconds(now() - writeStarted));
        observer.transferred(drive.id(), true, bytes, writeStarted, now());
    }

    /** Out of service: ERROR after faults, INFO when an administrator did it or it is the recorded state. */
    void down(String reason, boolean fault) {
        if (fault) {
            LOG.error("Drive {} out of service: {}", drive.id(), reason);
        } else {
            LOG.info("Drive {} out of service: {}", drive.id(), reason);
        }
    }

    void error() {
        observer.error(drive.id());
    }

    /** Wraps a locate's completion so that its duration reaches the observer. */
    Completion<Void> locate(Completion<Void> done) {
        long t0 = now();
        return new Completion<>() {
            @Override
            public void succeeded(Void v) {
                observer.located(drive.id(), now() - t0);
                done.succeeded(v);
            }

            @Override
            public void failed(TapeFault fault) {
                done.failed(fault);
            }
        };
    }

    /** A loop-time duration as seconds with one decimal, e.g. {@code 12.5 s}. */
    static String seconds(long millis) {
        return String.format(java.util.Locale.ROOT, "%.1f s", millis / 1000.0);
    }
}
