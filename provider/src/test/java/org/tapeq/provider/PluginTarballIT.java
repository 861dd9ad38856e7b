package org.tapeq.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream;
import org.junit.jupiter.api.Test;

/** The packaged plugin: one directory, no classes dCache already has, everything else relocated, Java 11. */
class PluginTarballIT {
    @Test
    void tarball_isOneDcachePluginDirectoryWithOnlyTapeqClassesForJava11() throws Exception {
        Path tarball = Path.of(System.getProperty("tapeq.provider.tarball"));
        String plugin = System.getProperty("tapeq.provider.plugin");
        List<String> entries = new ArrayList<>();
        List<String> classes = new ArrayList<>();
        String services = null;
        try (TarArchiveInputStream tar = new TarArchiveInputStream(new GzipCompressorInputStream(
                Files.newInputStream(tarball)))) {
            for (TarArchiveEntry e; (e = tar.getNextEntry()) != null; ) {
                entries.add(e.getName());
                assertTrue(e.getName().startsWith(plugin + "/"), "outside the plugin directory: " + e.getName());
                if (e.getName().endsWith(".jar")) {
                    ZipInputStream jar = new ZipInputStream(new ByteArrayInputStream(tar.readAllBytes()));
                    for (ZipEntry z; (z = jar.getNextEntry()) != null; ) {
                        byte[] content = jar.readAllBytes();
                        if (z.getName().endsWith(".class")) {
                            classes.add(z.getName());
                            int major = classMajorVersion(content);
                            assertTrue(major <= 55, z.getName() + " needs Java " + (major - 44) + ", pools run Java 11");
                            if (!z.getName().startsWith("org/tapeq/provider/shaded/")) {
                                assertEquals(55, major, z.getName() + " is not built with --release 11");
                            }
                        } else if (z.getName().equals(
                                "META-INF/services/org.dcache.pool.nearline.spi.NearlineStorageProvider")) {
                            services = new String(content, StandardCharsets.UTF_8).strip();
                        }
                    }
                }
            }
        }
        assertTrue(entries.contains(plugin + "/" + plugin + ".jar"), entries.toString());
        assertEquals(1, entries.stream().filter(n -> n.endsWith(".jar")).count(), "exactly one jar: " + entries);
        assertEquals(TapeqProvider.class.getName(), services);
        assertTrue(classes.contains("org/tapeq/provider/TapeqNearlineStorage.class"));
        assertTrue(classes.contains("org/tapeq/protocol/RequestCodec.class"), "the protocol is bundled");
        assertTrue(classes.stream().anyMatch(c -> c.startsWith("org/tapeq/provider/shaded/jackson/")),
                "Jackson is bundled relocated");
        for (String c : classes) {
            assertTrue(c.startsWith("org/tapeq/"), "bundles a class outside org.tapeq (not relocated?): " + c);
        }
    }

    private static int classMajorVersion(byte[] classFile) throws Exception {
        try (InputStream in = new ByteArrayInputStream(classFile); DataInputStream data = new DataInputStream(in)) {
            data.readInt(); // magic
            data.readUnsignedShort(); // minor
            return data.readUnsignedShort();
        }
    }
}
