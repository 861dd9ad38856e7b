package org.tapeq.daemon.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.tapeq.config.ConfigException;
import org.tapeq.mover.MoverSite;
import org.tapeq.mover.SiteIdentity;

/** A mover's {@code library.backend: remote}: parsed, described; refused on a daemon and with a bad address. */
class RemoteLibraryConfigTest {

    private static final String MOVER = """
            mover:
              name: m1
              site: demo
              listen: 127.0.1.2:9281
              drives: drive0, drive1
            state: /var/lib/tapeq-mover
            library:
              backend: remote
              remote:
                address: 127.0.1.3:9290
            """;

    @Test
    void aMoverOfARemoteLibrary_parsed_itsDrivesServedElsewhere() {
        MoverConfig c = MoverConfig.parse(MOVER, "mover.yaml");
        assertEquals(LibraryConfig.Backend.REMOTE, c.library().backend());
        assertEquals(new RemoteLibraryConfig("library", "127.0.1.3", 9290), c.library().remote());
        MoverSite site = c.library().remote().site(c.drives(), c.identity(), 5_000);
        assertEquals("library", site.changer());
        assertEquals(List.of("drive0", "drive1"), site.movers().get(0).drives());
        assertEquals(SiteIdentity.of("demo"), site.identity());
        YamlText out = new YamlText();
        c.library().describe(out);
        assertTrue(out.toString().contains("remote:") && out.toString().contains("\"127.0.1.3:9290\""), out.toString());
    }

    @Test
    void badAddress_orRemoteWithoutTheBackend_refusedNamingTheKey() {
        ConfigException e = assertThrows(ConfigException.class, () -> MoverConfig.parse(
                MOVER.replace("127.0.1.3:9290", "library-host"), "mover.yaml"));
        assertTrue(e.getMessage().contains("mover.yaml") && e.getMessage().contains("library.remote.address"),
                e.getMessage());
        e = assertThrows(ConfigException.class, () -> MoverConfig.parse(
                MOVER.replace("backend: remote", "backend: simulated"), "mover.yaml"));
        assertTrue(e.getMessage().contains("library.remote") && e.getMessage().contains("only with backend: remote"),
                e.getMessage());
    }

    @Test
    void aDaemonWithTheRemoteBackend_refused() {
        ConfigException e = assertThrows(ConfigException.class, () -> DaemonConfig.parse("""
                directories:
                  - path: /srv/endit
                library:
                  backend: remote
                  remote:
                    address: 127.0.1.3:9290
                """, "tapeq.yaml"));
        assertTrue(e.getMessage().contains("tapeq.yaml") && e.getMessage().contains("library.backend")
                && e.getMessage().contains("movers:"), e.getMessage());
    }
}
