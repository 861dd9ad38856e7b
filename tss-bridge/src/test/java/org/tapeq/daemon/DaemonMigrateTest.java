package org.tapeq.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tapeq migrate} through the control socket of a running daemon on a simulated library of one media type
 * (LTO-9): the answers it gives there (the migration itself, on two media types, is in SchedulerMigrationTest).
 */
class DaemonMigrateTest {

    @TempDir
    Path tmp;

    private DaemonFixture f;

    @BeforeEach
    void start() throws Exception {
        f = new DaemonFixture(tmp, "");
        f.start();
        f.labelAll();
    }

    @AfterEach
    void stop() {
        f.close();
    }

    @Test
    void migrate_nothingOfTheSourceMedia_refusedWithTheReason_statusListsNoMigration() throws Exception {
        Exception none = assertThrows(Exception.class, () -> f.control("migrate", List.of("LTO8", "LTO9", "-")));
        assertTrue(none.getMessage().contains("no LTO-8 cartridge holds live files"), none.getMessage());
        Exception unknown = assertThrows(Exception.class, () -> f.control("migrate", List.of("LTO3", "LTO9", "-")));
        assertTrue(unknown.getMessage().contains("unknown media type 'LTO3'"), unknown.getMessage());
        Exception cancel = assertThrows(Exception.class, () -> f.control("migrate-cancel", List.of()));
        assertTrue(cancel.getMessage().contains("no migration to cancel"), cancel.getMessage());

        JsonNode status = f.control("status", List.of()).path("scheduler");
        assertEquals(0, status.path("migrations").size(), status.toString());
    }
}
