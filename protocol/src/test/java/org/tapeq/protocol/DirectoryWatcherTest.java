package org.tapeq.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DirectoryWatcherTest {

    private static final String SENTINEL = "sentinel";

    @TempDir
    Path tmp;

    /** Records every call as {@code sub name CHANGE}. */
    private final BlockingQueue<String> calls = new LinkedBlockingQueue<>();

    private final DirectoryWatcher.Listener listener = new DirectoryWatcher.Listener() {
        @Override
        public void changed(String subdirectory, String name, DirectoryWatcher.Change change) {
            calls.add(subdirectory + " " + name + " " + change);
        }

        @Override
        public void lost(DirectoryWatcher.Loss loss, String detail) {
            calls.add("lost " + loss);
        }
    };

    @Test
    void watch_reportsOnlyTheChangesAskedForInTheSubdirectoriesAskedFor() throws Exception {
        RequestDirectory dir = RequestDirectory.create(tmp.resolve("d"));
        try (DirectoryWatcher w = DirectoryWatcher.of(dir)
                .watch(RequestDirectory.REQUEST, DirectoryWatcher.Change.CREATED, DirectoryWatcher.Change.REMOVED)
                .watch(RequestDirectory.IN, DirectoryWatcher.Change.REMOVED)
                .threadName("test-watch")
                .listener(listener)
                .build()) {
            w.start();
            Files.writeString(dir.requestDir().resolve("a"), "x");
            Files.writeString(dir.inDir().resolve("b"), "x");     // created: not asked for in in/
            Files.writeString(dir.outDir().resolve("c"), "x");    // out/ is not watched
            Files.delete(dir.inDir().resolve("b"));
            Files.delete(dir.requestDir().resolve("a"));
            Files.writeString(dir.requestDir().resolve(SENTINEL), "x");
            Files.writeString(dir.inDir().resolve(SENTINEL), "x");
            Files.delete(dir.inDir().resolve(SENTINEL));
            // The kernel keeps the order within one subdirectory, not across two: compare each on its own.
            List<String> seen = untilSentinels(2);
            assertEquals(List.of("request a CREATED", "request a REMOVED", "request " + SENTINEL + " CREATED"),
                    seen.stream().filter(c -> c.startsWith("request ")).collect(Collectors.toList()), "all calls: " + seen);
            assertEquals(List.of("in b REMOVED", "in " + SENTINEL + " REMOVED"),
                    seen.stream().filter(c -> c.startsWith("in ")).collect(Collectors.toList()), "all calls: " + seen);
            assertEquals(5, seen.size(), "no call for out/ or for a creation in in/: " + seen);
        }
    }

    @Test
    void watch_twoUsersWatchingDifferentThings_eachGetsItsOwn() throws Exception {
        RequestDirectory dir = RequestDirectory.create(tmp.resolve("d"));
        BlockingQueue<String> other = new LinkedBlockingQueue<>();
        try (DirectoryWatcher daemonSide = DirectoryWatcher.of(dir)
                .watch(RequestDirectory.REQUEST, DirectoryWatcher.Change.CREATED)
                .listener(listener).build();
             DirectoryWatcher providerSide = DirectoryWatcher.of(dir)
                .watch(RequestDirectory.OUT, DirectoryWatcher.Change.REMOVED)
                .listener(new DirectoryWatcher.Listener() {
                    @Override
                    public void changed(String subdirectory, String name, DirectoryWatcher.Change change) {
                        other.add(subdirectory + " " + name + " " + change);
                    }

                    @Override
                    public void lost(DirectoryWatcher.Loss loss, String detail) {
                        other.add("lost " + loss);
                    }
                }).build()) {
            daemonSide.start();
            providerSide.start();
            Files.writeString(dir.outDir().resolve("link"), "x");
            Files.delete(dir.outDir().resolve("link"));
            Files.writeString(dir.requestDir().resolve(SENTINEL), "x");
            assertEquals("out link REMOVED", other.poll(30, TimeUnit.SECONDS));
            assertEquals(List.of("request " + SENTINEL + " CREATED"), untilSentinel());
        }
    }

    @Test
    void build_withoutListenerOrWatches_orAnUnknownSubdirectory_isRefused() {
        RequestDirectory dir = RequestDirectory.at(tmp);
        assertThrows(IllegalStateException.class, () -> DirectoryWatcher.of(dir).listener(listener).build());
        assertThrows(IllegalStateException.class,
                () -> DirectoryWatcher.of(dir).watch(RequestDirectory.IN, DirectoryWatcher.Change.CREATED).build());
        assertThrows(IllegalArgumentException.class,
                () -> DirectoryWatcher.of(dir).watch("elsewhere", DirectoryWatcher.Change.CREATED));
    }

    /** The calls up to and including the sentinel's creation (events arrive in order on one watch service). */
    private List<String> untilSentinel() throws InterruptedException {
        return untilSentinels(1);
    }

    /** The calls up to and including the {@code count}-th one that names the sentinel. */
    private List<String> untilSentinels(int count) throws InterruptedException {
        List<String> seen = new ArrayList<>();
        int sentinels = 0;
        while (true) {
            String call = calls.poll(30, TimeUnit.SECONDS);
            assertNotNull(call, "timed out; seen so far: " + seen);
            seen.add(call);
            if (call.contains(SENTINEL) && ++sentinels == count) {
                return seen;
            }
        }
    }
}
