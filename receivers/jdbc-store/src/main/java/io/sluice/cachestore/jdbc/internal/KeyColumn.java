package io.sluice.cachestore.jdbc.internal;

/**
 * The SQL side of a key column's type: its SQL name and the element name of an array of keys. The public
 * {@code JdbcStoreConfig.KeyType} names one of these; the internals work with this, so that they do not depend
 * on the store's public package (which depends on them).
 */
public enum KeyColumn {
    BIGINT("bigint", "int8"),
    INTEGER("integer", "int4"),
    TEXT("text", "text"),
    BYTEA("bytea", "bytea");

    private final String sql;
    private final String arrayElement;

    KeyColumn(String sql, String arrayElement) {
        this.sql = sql;
        this.arrayElement = arrayElement;
    }

    /** The SQL type. */
    public String sql() {
        return sql;
    }

    /** The element type name of an array of keys ({@code Connection.createArrayOf}). */
    public String arrayElement() {
        return arrayElement;
    }
}
