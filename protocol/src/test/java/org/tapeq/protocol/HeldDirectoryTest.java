package org.tapeq.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HeldDirectoryTest {
    @TempDir
    Path tmp;

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * A stage target is a new file whatever was at its name: nothing (created), a file of an earlier attempt or a
     * hard link to a file elsewhere (removed first, the other file untouched), a symbolic link (refused, naming the
     * target, and what it points to untouched).
     */
    @Test
    void openStageTarget_newFileWhateverWasThere_linkRefused() throws Exception {
        RequestDirectory layout = RequestDirectory.create(tmp.resolve("E"));
        Path outside = Files.write(tmp.resolve("outside"), utf8("outside"));
        try (HeldRequestDirectory held = HeldRequestDirectory.open(layout)) {
            Path fresh = layout.inDir().resolve(".0001.tmp");
            try (var c = held.openStageTarget(fresh)) {
                c.write(ByteBuffer.wrap(utf8("one")));
            }
            assertArrayEquals(utf8("one"), Files.readAllBytes(fresh));

            Path earlier = layout.inDir().resolve(".0002.tmp");
            Files.write(earlier, utf8("an earlier attempt's bytes"));
            try (var stale = Files.newByteChannel(earlier, StandardOpenOption.WRITE);
                 var c = held.openStageTarget(earlier)) {
                stale.write(ByteBuffer.wrap(utf8("late")));
                c.write(ByteBuffer.wrap(utf8("two")));
            }
            assertArrayEquals(utf8("two"), Files.readAllBytes(earlier), "the earlier writer's file was replaced");

            Path linked = layout.inDir().resolve(".0003.tmp");
            Files.createLink(linked, outside);
            try (var c = held.openStageTarget(linked)) {
                c.write(ByteBuffer.wrap(utf8("three")));
            }
            assertArrayEquals(utf8("three"), Files.readAllBytes(linked));
            assertArrayEquals(utf8("outside"), Files.readAllBytes(outside), "the hard link's other name untouched");

            Path symlink = layout.inDir().resolve(".0004.tmp");
            Files.createSymbolicLink(symlink, outside);
            ProtocolException e = assertThrows(ProtocolException.class, () -> held.openStageTarget(symlink));
            assertTrue(e.getMessage().contains(symlink.toString()) && e.getMessage().contains("symbolic link"),
                    e.getMessage());
            assertTrue(Files.isSymbolicLink(symlink));
            assertArrayEquals(utf8("outside"), Files.readAllBytes(outside));
        }
    }

    /** The attack of issue 18: in/ renamed and replaced by a link to a directory elsewhere while held open. */
    @Test
    void swappedForLink_writesStayInTheOpenedDirectory_andChangeIsReported() throws Exception {
        RequestDirectory layout = RequestDirectory.create(tmp.resolve("E"));
        Path outside = Files.createDirectory(tmp.resolve("outside"));
        try (HeldRequestDirectory held = HeldRequestDirectory.open(layout)) {
            assertNull(held.changed());
            Path real = tmp.resolve("E/in.real");
            Files.move(layout.inDir(), real);
            Files.createSymbolicLink(layout.inDir(), outside);

            held.in().write("000A", utf8("data"), true);
            held.in().openWrite("000B").close();
            Files.write(outside.resolve("000C"), utf8("outside"));

            assertEquals(List.of(), listing(outside, "000C"), "nothing written through the link");
            assertArrayEquals(utf8("data"), Files.readAllBytes(real.resolve("000A")));
            assertTrue(Files.exists(real.resolve("000B")));
            assertFalse(held.in().exists("000C"), "nothing read through the link");
            assertFalse(held.in().probablyExists("000C"));
            String changed = held.changed();
            assertTrue(changed.contains(layout.inDir() + " is now a symbolic link to " + outside), changed);
        }
    }

    @Test
    void replacedByAnotherDirectory_isReported() throws Exception {
        RequestDirectory layout = RequestDirectory.create(tmp.resolve("E"));
        try (HeldRequestDirectory held = HeldRequestDirectory.open(layout)) {
            Files.move(layout.requestDir(), tmp.resolve("E/request.old"));
            Files.createDirectory(layout.requestDir());
            assertTrue(held.changed().contains(layout.requestDir() + " is now a different directory"),
                    held.changed());
        }
    }

    @Test
    void linkAtStart_isRefused() throws Exception {
        RequestDirectory layout = RequestDirectory.create(tmp.resolve("E"));
        Files.delete(layout.outDir());
        Files.createSymbolicLink(layout.outDir(), Files.createDirectory(tmp.resolve("elsewhere")));
        ProtocolException e = assertThrows(ProtocolException.class, () -> HeldRequestDirectory.open(layout));
        assertTrue(e.getMessage().contains("symbolic link"), e.getMessage());
    }

    @Test
    void namesWithSeparatorsOrDots_areRefused_andLinksAreNotFollowed() throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("d"));
        Path secret = Files.write(tmp.resolve("secret"), utf8("secret"));
        Files.createSymbolicLink(dir.resolve("link"), secret);
        try (HeldDirectory held = HeldDirectory.open(dir)) {
            assertThrows(IllegalArgumentException.class, () -> held.write("../x", utf8("x"), false));
            assertThrows(IllegalArgumentException.class, () -> held.openRead(".."));
            assertThrows(ProtocolException.class, () -> held.readSmall("link", 100));
            assertThrows(java.io.IOException.class, () -> held.openWrite("link"));
            assertTrue(held.delete("link"));
            assertArrayEquals(utf8("secret"), Files.readAllBytes(secret), "the link's target is untouched");
            held.write("a", utf8("1"), false);
            held.commit("a", "b");
            assertEquals(List.of("b"), held.list());
            assertArrayEquals(utf8("1"), held.readSmall("b", 10));
        }
    }

    @Test
    void readSmall_throughAKeptBuffer_returnsExactlyTheFile_growsTheBufferIfNeeded_andRefusesAFileThatGrew()
            throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("r"));
        byte[] content = utf8("x".repeat(3000));
        Files.write(dir.resolve("f"), content);
        Files.write(dir.resolve("e"), new byte[0]);
        try (HeldDirectory held = HeldDirectory.open(dir)) {
            ByteBuffer direct = ByteBuffer.allocateDirect(4097);
            direct.put(utf8("stale content of the file read before"));
            assertArrayEquals(content, held.readSmall("f", 4096, held.attributes("f"), direct));
            assertArrayEquals(new byte[0], held.readSmall("e", 4096, held.attributes("e"), direct));
            ByteBuffer small = ByteBuffer.allocate(100); // grown while reading, up to the limit
            assertArrayEquals(content, held.readSmall("f", 4096, held.attributes("f"), small));
            assertArrayEquals(content, held.readSmall("f", 4096), "without a kept buffer, the same");

            BasicFileAttributes before = held.attributes("f"); // 3000 bytes: within 3000
            Files.write(dir.resolve("f"), utf8("y"), StandardOpenOption.APPEND);
            ProtocolException grew = assertThrows(ProtocolException.class,
                    () -> held.readSmall("f", 3000, before, direct));
            assertTrue(grew.getMessage().contains("grew beyond the 3000 bytes allowed"), grew.getMessage());
            ProtocolException large = assertThrows(ProtocolException.class,
                    () -> held.readSmall("f", 3000, held.attributes("f"), direct));
            assertTrue(large.getMessage().contains("has 3001 bytes"), large.getMessage());
        }
    }

    private static List<String> listing(Path dir, String except) throws Exception {
        try (var s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> !n.equals(except)).sorted()
                    .collect(java.util.stream.Collectors.toList());
        }
    }
}
