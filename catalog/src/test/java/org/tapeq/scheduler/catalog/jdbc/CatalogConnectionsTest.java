package org.tapeq.scheduler.catalog.jdbc;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.BatchUpdateException;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

/** Which SQL failures the catalog retries (the database is unreachable or busy) and which fail at once. */
class CatalogConnectionsTest {

    @ParameterizedTest
    @ValueSource(strings = {"08000", "08001", "08003", "08006", "08P01", "57P01", "57P02", "57P03", "57P05"})
    void isConnectionLoss_connectionStates_areLoss(String state) {
        assertTrue(CatalogConnections.isConnectionLoss(new SQLException("lost", state)));
        assertTrue(CatalogConnections.isConnectionLoss(new RuntimeException(new SQLException("lost", state))));
    }

    @ParameterizedTest
    @ValueSource(strings = {"23505", "23503", "22001", "22P02", "42601", "42P01", "40002", "57014", "25P02",
            "XX000"})
    void isConnectionLoss_statementErrors_areNotLoss(String state) {
        assertFalse(CatalogConnections.isConnectionLoss(new SQLException("wrong", state)));
        assertFalse(CatalogConnections.isBusy(new SQLException("wrong", state)));
        assertFalse(CatalogConnections.isTransient(new SQLException("wrong", state)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"40001", "40P01", "53000", "53100", "53200", "53300"})
    void isTransient_deadlockSerialisationAndResourceStates_areTransient(String state) {
        assertTrue(CatalogConnections.isTransient(new SQLException("later", state)));
        assertTrue(CatalogConnections.isTransient(new RuntimeException(new SQLException("later", state))));
        assertFalse(CatalogConnections.isConnectionLoss(new SQLException("later", state)), "the connection is kept");
    }

    @Test
    void isTransient_sqliteDiskFull_isTransient() {
        assertTrue(CatalogConnections.isTransient(new SQLiteException("database or disk is full",
                SQLiteErrorCode.SQLITE_FULL)));
        assertFalse(CatalogConnections.isTransient(new SQLiteException("UNIQUE constraint failed",
                SQLiteErrorCode.SQLITE_CONSTRAINT_UNIQUE)));
    }

    @Test
    void isConnectionLoss_recoverableWithoutConnectionState_isNotLoss() {
        assertFalse(CatalogConnections.isConnectionLoss(new SQLRecoverableException("unique violation", "23505")));
        assertFalse(CatalogConnections.isConnectionLoss(new SQLRecoverableException("no state")));
    }

    @Test
    void isConnectionLoss_poolTimeout_isLoss() {
        assertTrue(CatalogConnections.isConnectionLoss(new SQLTransientConnectionException(
                "tapeq-catalog-pool - Connection is not available, request timed out after 5000ms.")));
    }

    @Test
    void isConnectionLoss_batchWithConstraintViolationNext_isNotLoss() {
        BatchUpdateException batch = new BatchUpdateException("batch entry 0 failed", "23505", new int[0]);
        batch.setNextException(new SQLException("duplicate key", "23505"));
        assertFalse(CatalogConnections.isConnectionLoss(batch));
    }

    @Test
    void isBusy_sqliteBusyAndLocked_areBusy() {
        assertTrue(CatalogConnections.isBusy(new SQLiteException("database is locked", SQLiteErrorCode.SQLITE_BUSY)));
        assertTrue(CatalogConnections.isBusy(new SQLiteException("locked", SQLiteErrorCode.SQLITE_LOCKED)));
        assertTrue(CatalogConnections.isBusy(new SQLiteException("busy", SQLiteErrorCode.SQLITE_BUSY_SNAPSHOT)));
        assertFalse(CatalogConnections.isConnectionLoss(
                new SQLiteException("database is locked", SQLiteErrorCode.SQLITE_BUSY)));
    }

    @Test
    void isBusy_sqliteConstraint_isNotBusy() {
        assertFalse(CatalogConnections.isBusy(new SQLiteException("UNIQUE constraint failed",
                SQLiteErrorCode.SQLITE_CONSTRAINT_UNIQUE)));
        assertFalse(CatalogConnections.isConnectionLoss(new SQLiteException("UNIQUE constraint failed",
                SQLiteErrorCode.SQLITE_CONSTRAINT_UNIQUE)));
    }
}
