package org.tapeq.packages;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** The check that makes the container unavailable when the overlay of / would not show a directory's files. */
@EnabledOnOs(OS.LINUX)
class SystemdContainerTest {

    /** /proc is always a file system of its own; / itself is on the root file system by definition. */
    @Test
    void separateFileSystems_namesTheDirectoriesOnAnotherDevice() throws Exception {
        assertEquals(List.of("/proc"), SystemdContainer.separateFileSystems(Path.of("/"), List.of("/proc", "/")));
    }

    @Test
    void separateFileSystems_ignoresMissingDirectories() throws Exception {
        assertEquals(List.of(), SystemdContainer.separateFileSystems(Path.of("/"), List.of("/no-such-directory")));
    }
}
