package org.tapeq.fuzz;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * Runs a fuzz test: a number of inputs, each made from its own seeded {@link Random}, each checked by the test's
 * body, each under a watchdog. The first input the body rejects (any {@link Throwable}) fails the test with the
 * input, its number and the run's seed; {@code -Dtapeq.fuzz.seed=S} repeats a run. Every run prints one line:
 * inputs, wall-clock time and rate, the fuzzing thread's CPU time and rate (what the parser costs, whatever else
 * the machine runs), seed; a long run also prints its progress every million inputs.
 *
 * <p>An input that has not finished after {@code tapeq.fuzz.timeoutSeconds} (default 10) seconds is a hang: the
 * input (escaped, and as a file under {@code target/fuzz-hangs/}) and the stuck thread's stack are printed and the
 * test JVM is halted, which fails the build. A thread stuck in a loop cannot be stopped any other way, and a hang
 * must not pass as a slow test.
 *
 * <p>Design note: the watchdog reads two volatile fields written by the one fuzzing thread, so guarding an input
 * costs two volatile writes, not a thread hand-off; inputs are made per number ({@code seed} mixed with the
 * input's number), so a failing one can be made again without the ones before it. The inputs run on a thread of
 * their own rather than deep in the test framework's stack: most inputs end in an exception, and filling in a
 * stack trace costs per frame.
 */
public final class Fuzz {
    /** Inputs per mutation fuzz test: a few thousand in every build, 10 000 000 in the long run. */
    public static final String TRIES_PROPERTY = "tapeq.fuzz.tries";
    /** The seed of a run to repeat; a new one is drawn (and printed) when it is not set. */
    public static final String SEED_PROPERTY = "tapeq.fuzz.seed";
    /** Seconds one input may take before it counts as a hang. */
    public static final String TIMEOUT_PROPERTY = "tapeq.fuzz.timeoutSeconds";
    private static final int DEFAULT_TRIES = 3000;
    /** A long run prints how far it got every this many inputs. */
    private static final long PROGRESS_EVERY = 1_000_000;

    private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(Long.getLong(TIMEOUT_PROPERTY, 10));
    private static volatile Object current;
    private static volatile long startedNanos;
    private static volatile Thread fuzzing;
    private static Thread watchdog;

    private Fuzz() {
    }

    /** What a test checks for one input; it throws (an assertion, or whatever the code under test let out) to reject it. */
    public interface Body<T> {
        void check(T input) throws Exception;
    }

    /** Inputs per mutation fuzz test, from {@value #TRIES_PROPERTY}. */
    public static long tries() {
        String value = System.getProperty(TRIES_PROPERTY, "");
        return value.isBlank() ? DEFAULT_TRIES : Long.parseLong(value.strip());
    }

    /** Checks {@link #tries()} mutants from {@code source}. */
    public static void mutants(String name, Mutations source, Body<FuzzInput> body) {
        run(name, tries(), source::next, body);
    }

    /**
     * Checks {@code tries} values made by {@code generator}, e.g. values to write and read back.
     *
     * @throws AssertionError for the first value {@code body} rejects, naming it, its number and the seed
     */
    public static <T> void run(String name, long tries, Function<Random, T> generator, Body<T> body) {
        String fixed = System.getProperty(SEED_PROPERTY, "");
        long seed = fixed.isBlank() ? new Random().nextLong() : Long.parseLong(fixed.strip());
        startWatchdog();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread thread = new Thread(() -> {
            try {
                loop(name, tries, seed, generator, body);
            } catch (Throwable t) {
                failure.set(t);
            }
        }, "tapeq-fuzz");
        fuzzing = thread;
        thread.start();
        try {
            thread.join();
        } catch (InterruptedException e) {
            thread.interrupt();
            Thread.currentThread().interrupt();
            throw new AssertionError(name + ": interrupted", e);
        }
        Throwable t = failure.get();
        if (t instanceof Error) {
            throw (Error) t;
        } else if (t != null) {
            throw new AssertionError(t);
        }
    }

    /**
     * The inputs, on a thread of their own: its stack is a few frames deep, so each exception a parser throws is
     * cheap to make.
     */
    private static <T> void loop(String name, long tries, long seed, Function<Random, T> generator, Body<T> body) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        boolean cpu = threads.isCurrentThreadCpuTimeSupported();
        long startCpu = cpu ? threads.getCurrentThreadCpuTime() : 0;
        long start = System.nanoTime();
        for (long i = 0; i < tries; i++) {
            T value = generator.apply(new Random(seed ^ (i * 0x9E3779B97F4A7C15L)));
            startedNanos = System.nanoTime();
            current = value;
            try {
                body.check(value);
            } catch (Throwable t) {
                throw new AssertionError(name + ": input " + i + " of the run with seed " + seed + " (repeat with -D"
                        + SEED_PROPERTY + "=" + seed + ") was rejected: " + t + "\ninput: " + value, t);
            } finally {
                current = null;
            }
            if ((i + 1) % PROGRESS_EVERY == 0 && i + 1 < tries) {
                System.out.printf(Locale.ROOT, "[fuzz] %s: %d of %d inputs after %.0f s, seed %d%n", name, i + 1,
                        tries, (System.nanoTime() - start) / 1e9, seed);
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        double cpuSeconds = cpu ? (threads.getCurrentThreadCpuTime() - startCpu) / 1e9 : Double.NaN;
        System.out.printf(Locale.ROOT, "[fuzz] %s: %d inputs in %.1f s (%.0f/s), CPU %.1f s (%.0f/s), seed %d, "
                + "no failure, no hang%n", name, tries, seconds, tries / Math.max(seconds, 1e-9), cpuSeconds,
                tries / Math.max(cpuSeconds, 1e-9), seed);
    }

    /**
     * Writes {@code seeds} into the corpus directory Jazzer's JUnit integration reads and fills in fuzzing mode
     * ({@code .cifuzz-corpus/<test class>/<test method>} in the module's directory), so that the coverage-guided
     * run starts from the same samples as the mutation fuzzer rather than from nothing.
     */
    public static void seedJazzerCorpus(Class<?> test, String method, List<byte[]> seeds) throws IOException {
        Path dir = Files.createDirectories(Path.of(".cifuzz-corpus", test.getName(), method));
        for (int i = 0; i < seeds.size(); i++) {
            Files.write(dir.resolve("sample-" + i), seeds.get(i));
        }
    }

    private static synchronized void startWatchdog() {
        if (watchdog == null) {
            watchdog = new Thread(Fuzz::watch, "tapeq-fuzz-watchdog");
            watchdog.setDaemon(true);
            watchdog.start();
        }
    }

    private static void watch() {
        while (true) {
            try {
                Thread.sleep(250);
            } catch (InterruptedException e) {
                return;
            }
            Object input = current;
            if (input != null && System.nanoTime() - startedNanos > TIMEOUT_NANOS && input == current) {
                reportHang(input);
                Runtime.getRuntime().halt(3);
            }
        }
    }

    private static void reportHang(Object input) {
        StringBuilder sb = new StringBuilder("HANG: not done within "
                + TimeUnit.NANOSECONDS.toSeconds(TIMEOUT_NANOS) + " s with input " + input);
        if (input instanceof FuzzInput) {
            try {
                Path dir = Files.createDirectories(Path.of("target", "fuzz-hangs"));
                Path file = dir.resolve("hang-" + Integer.toHexString(input.hashCode()) + ".bin");
                Files.write(file, ((FuzzInput) input).bytes());
                sb.append("\nsaved as ").append(file.toAbsolutePath());
            } catch (IOException e) {
                sb.append("\n(could not save the input: ").append(e).append(')');
            }
        }
        Thread t = fuzzing;
        if (t != null) {
            for (StackTraceElement e : t.getStackTrace()) {
                sb.append("\n\tat ").append(e);
            }
        }
        System.err.println(sb);
        System.err.flush();
    }
}
