package io.sluice.cachestore.jdbc.internal;

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

    /**
     * @param json       whether values are JSON in a {@code jsonb} column (else bytes in a {@code bytea} one)
     * @param valueType  the value column's SQL type
     */
    public StoreSql(String table, String keyColumn, KeyColumn keyType, String valueColumn, String valueType,
                    boolean json) {
        String t = table;
        String k = keyColumn;
        String v = valueColumn;
        String stage = "sluice_stage_" + t.replace('.', '_');
        // jsonb values travel as text (arrays, COPY) and are cast where they reach the table.
        String travel = json ? "text" : "bytea";
        String cast = json ? "::jsonb" : "";
        createTable = "CREATE TABLE IF NOT EXISTS " + t + " (" + k + ' ' + keyType.sql() + " PRIMARY KEY, "
                + v + ' ' + valueType + " NOT NULL)";
        // pgjdbc's reWriteBatchedInserts turns a batch of this into multi-row INSERTs; keys are unique per batch.
        upsert = "INSERT INTO " + t + " (" + k + ", " + v + ") VALUES (?, ?" + cast + ") ON CONFLICT (" + k + ") DO UPDATE SET "
                + v + " = EXCLUDED." + v;
        // The same rows plainly inserted (JdbcStoreConfig.insertFirst): fails whole on any present key.
        insertArrays = "INSERT INTO " + t + " (" + k + ", " + v + ") SELECT u.k, u.v" + cast + " FROM unnest(?::"
                + keyType.sql() + "[], ?::" + travel + "[]) AS u(k, v)";
        upsertArrays = insertArrays + " ON CONFLICT (" + k + ") DO UPDATE SET " + v + " = EXCLUDED." + v;
        select = "SELECT " + v + " FROM " + t + " WHERE " + k + " = ?";
        selectAny = "SELECT " + k + ", " + v + " FROM " + t + " WHERE " + k + " = ANY (?)";
        delete = "DELETE FROM " + t + " WHERE " + k + " = ?";
        deleteAny = "DELETE FROM " + t + " WHERE " + k + " = ANY (?)";
        createStage = "CREATE TEMP TABLE IF NOT EXISTS " + stage + " (" + k + ' ' + keyType.sql() + ", " + v
                + ' ' + travel + ") ON COMMIT DELETE ROWS";
        copyIntoStage = "COPY " + stage + " (" + k + ", " + v + ") FROM STDIN (FORMAT binary)";
        // Straight into the table (insert first, bytea values only: a jsonb column's binary COPY form differs).
        copyIntoTable = "COPY " + t + " (" + k + ", " + v + ") FROM STDIN (FORMAT binary)";
        upsertFromStage = "INSERT INTO " + t + " (" + k + ", " + v + ") SELECT " + k + ", " + v + cast + " FROM " + stage
                + " ON CONFLICT (" + k + ") DO UPDATE SET " + v + " = EXCLUDED." + v;
    }
}
