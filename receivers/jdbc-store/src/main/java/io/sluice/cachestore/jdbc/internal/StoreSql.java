package io.sluice.cachestore.jdbc.internal;

import io.sluice.cachestore.jdbc.JdbcStoreConfig;

/**
 * The SQL text of a JDBC store, made once from its table and column names (checked identifiers, so
 * concatenation is safe).
 */
public final class StoreSql {

    public final String createTable;
    public final String upsert;
    public final String upsertArrays;
    public final String insertArrays;
    public final String select;
    public final String selectAny;
    public final String delete;
    public final String deleteAny;
    public final String createStage;
    public final String copyIntoStage;
    public final String copyIntoTable;
    public final String upsertFromStage;

    public StoreSql(JdbcStoreConfig c) {
        String t = c.table();
        String k = c.keyColumn();
        String v = c.valueColumn();
        String stage = "sluice_stage_" + t.replace('.', '_');
        // jsonb values travel as text (arrays, COPY) and are cast where they reach the table.
        boolean json = c.valueFormat() == JdbcStoreConfig.ValueFormat.JSONB;
        String valueType = c.valueFormat().sql();
        String travel = json ? "text" : "bytea";
        String cast = json ? "::jsonb" : "";
        createTable = "CREATE TABLE IF NOT EXISTS " + t + " (" + k + ' ' + c.keyType().sql() + " PRIMARY KEY, "
                + v + ' ' + valueType + " NOT NULL)";
        // pgjdbc's reWriteBatchedInserts turns a batch of this into multi-row INSERTs; keys are unique per batch.
        upsert = "INSERT INTO " + t + " (" + k + ", " + v + ") VALUES (?, ?" + cast + ") ON CONFLICT (" + k + ") DO UPDATE SET "
                + v + " = EXCLUDED." + v;
        // The same rows plainly inserted (JdbcStoreConfig.insertFirst): fails whole on any present key.
        insertArrays = "INSERT INTO " + t + " (" + k + ", " + v + ") SELECT u.k, u.v" + cast + " FROM unnest(?::"
                + c.keyType().sql() + "[], ?::" + travel + "[]) AS u(k, v)";
        upsertArrays = insertArrays + " ON CONFLICT (" + k + ") DO UPDATE SET " + v + " = EXCLUDED." + v;
        select = "SELECT " + v + " FROM " + t + " WHERE " + k + " = ?";
        selectAny = "SELECT " + k + ", " + v + " FROM " + t + " WHERE " + k + " = ANY (?)";
        delete = "DELETE FROM " + t + " WHERE " + k + " = ?";
        deleteAny = "DELETE FROM " + t + " WHERE " + k + " = ANY (?)";
        createStage = "CREATE TEMP TABLE IF NOT EXISTS " + stage + " (" + k + ' ' + c.keyType().sql() + ", " + v
                + ' ' + travel + ") ON COMMIT DELETE ROWS";
        copyIntoStage = "COPY " + stage + " (" + k + ", " + v + ") FROM STDIN (FORMAT binary)";
        // Straight into the table (insert first, bytea values only: a jsonb column's binary COPY form differs).
        copyIntoTable = "COPY " + t + " (" + k + ", " + v + ") FROM STDIN (FORMAT binary)";
        upsertFromStage = "INSERT INTO " + t + " (" + k + ", " + v + ") SELECT " + k + ", " + v + cast + " FROM " + stage
                + " ON CONFLICT (" + k + ") DO UPDATE SET " + v + " = EXCLUDED." + v;
    }
}
