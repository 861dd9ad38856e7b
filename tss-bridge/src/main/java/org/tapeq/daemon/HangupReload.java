package org.tapeq.daemon;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.config.ConfigException;
import org.tapeq.daemon.config.DaemonConfig;
import org.tapeq.scheduler.time.Threads;

/**
 * SIGHUP ({@code systemctl reload tapeq}): reads the configuration file again, validates it as at start, and
 * hands the keys a running daemon may change to it ({@link Daemon#reload}); each changed key that needs a
 * restart is named in the log and left as it was. A file that does not validate changes nothing; the log says
 * which key is wrong and why.
 *
 * <p>Design notes. The JVM's own SIGHUP handler runs the shutdown hooks, which is why the daemon used to stop
 * on it. {@code sun.misc.Signal} (module {@code jdk.unsupported}, exported on purpose for such uses and kept
 * through every release since Java 9) replaces that handler; the JDK has no supported API for signals. It is
 * called through reflection because javac warns on every use of it (a warning no annotation suppresses, and
 * warnings fail this build); a JDK without it leaves SIGHUP as it was, and the log says so. The
 * handler only queues the reload on its own named thread (one at a time, a hangup while one waits is dropped:
 * the waiting one reads the file anyway), so the signal dispatcher never blocks. Under {@code -Xrs} the JVM
 * refuses the handler, and a hangup stops the daemon as before (logged at start).
 */
public final class HangupReload implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(HangupReload.class);

    /** The daemon served, once it started; until then a hangup changes nothing (and is not fatal). */
    private volatile Daemon daemon;
    private final Path file;
    private final ExecutorService executor = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(1), Threads.named("tapeq-reload"), new ThreadPoolExecutor.DiscardPolicy());

    public HangupReload(Daemon daemon, Path file) {
        this.daemon = daemon;
        this.file = file;
    }

    /**
     * For a daemon not started yet: installed before its start (which may wait for the catalog for long), so a
     * reload meanwhile is refused and logged rather than stopping the JVM; {@link #serve} names the daemon.
     */
    public HangupReload(Path file) {
        this.file = file;
    }

    /** Reloads into {@code started} from now on. */
    public void serve(Daemon started) {
        this.daemon = started;
    }

    /** Reloads on each SIGHUP from now on; returns false (and logs why) if the JVM refuses the handler. */
    public boolean install() {
        try {
            Class<?> signal = Class.forName("sun.misc.Signal");
            Class<?> handler = Class.forName("sun.misc.SignalHandler");
            Object onHangup = Proxy.newProxyInstance(handler.getClassLoader(), new Class<?>[] {handler},
                    (proxy, method, args) -> switch (method.getName()) {
                        case "handle" -> {
                            executor.execute(this::reload);
                            yield null;
                        }
                        case "hashCode" -> System.identityHashCode(proxy);
                        case "equals" -> proxy == args[0];
                        default -> "tapeq's SIGHUP reload";
                    });
            signal.getMethod("handle", signal, handler).invoke(null,
                    signal.getConstructor(String.class).newInstance("HUP"), onHangup);
            return true;
        } catch (InvocationTargetException e) {
            LOG.warn("SIGHUP cannot reload the configuration ({}); it stops the daemon", e.getCause().toString());
            return false;
        } catch (ReflectiveOperationException e) {
            LOG.warn("SIGHUP cannot reload the configuration (no sun.misc.Signal: {}); it stops the daemon",
                    e.toString());
            return false;
        }
    }

    /** Reads, validates and applies the file; returns what it logged. */
    public String reload() {
        Daemon d = daemon;
        if (d == null) {
            String line = "Reload refused, nothing changed: the daemon is not started yet";
            LOG.warn(line);
            return line;
        }
        DaemonConfig next;
        try {
            next = DaemonConfig.load(file);
            next.checkPaths();
        } catch (ConfigException e) {
            String line = "Reload refused, nothing changed: " + e.getMessage();
            LOG.error(line);
            return line;
        }
        try {
            DaemonConfig.Changes c = d.reload(next);
            String line = "Reloaded " + file + ": in effect " + (c.reloaded().isEmpty() ? "(no reloadable key changed)"
                    : String.join(", ", c.reloaded())) + "; not reloaded (changed, need a restart) "
                    + (c.restart().isEmpty() ? "none" : String.join(", ", c.restart()));
            if (c.restart().isEmpty()) {
                LOG.info(line);
            } else {
                LOG.warn(line);
            }
            return line;
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            String line = "Reload of " + file + " failed: " + e.getMessage();
            LOG.error(line);
            return line;
        }
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
