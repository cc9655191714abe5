package io.sluice.cachestore.jdbc.internal;

import io.sluice.CacheStoreContext;

import java.nio.ByteBuffer;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * A cache key as its column's value, and back: {@code bigint}/{@code integer} from integral
 * numbers, {@code text} from strings, {@code bytea} from the key's binary encoding (any key).
 * A key that does not fit the column is refused with a message naming it.
 */
public final class KeyBinder {

    private final KeyColumn type;
    private final CacheStoreContext context;

    public KeyBinder(KeyColumn type, CacheStoreContext context) {
        this.type = type;
        this.context = context;
    }

    public KeyColumn type() {
        return type;
    }

    /**
     * The column value of a key: a Long, Integer, String or byte[].
     *
     * @throws IllegalArgumentException if the key does not fit the column's type
     */
    public Object columnValue(Object key) {
        switch (type) {
            case BIGINT:
                if (key instanceof Long || key instanceof Integer || key instanceof Short || key instanceof Byte) {
                    return ((Number) key).longValue();
                }
                break;
            case INTEGER:
                if (key instanceof Integer || key instanceof Short || key instanceof Byte) {
                    return ((Number) key).intValue();
                }
                break;
            case TEXT:
                if (key instanceof String) {
                    return key;
                }
                break;
            case BYTEA:
                return context.toBytes(key);
            default:
                break;
        }
        throw new IllegalArgumentException("key " + key + " (" + key.getClass().getName() + ") does not fit a "
                + type.sql() + " key column (JdbcStoreConfig.keyType)");
    }

    /** A column value as a map key (byte arrays compared by content). */
    public static Object lookupKey(Object columnValue) {
        return columnValue instanceof byte[] b ? ByteBuffer.wrap(b) : columnValue;
    }

    public void bind(PreparedStatement statement, int index, Object columnValue) throws SQLException {
        switch (type) {
            case BIGINT -> statement.setLong(index, (Long) columnValue);
            case INTEGER -> statement.setInt(index, (Integer) columnValue);
            case TEXT -> statement.setString(index, (String) columnValue);
            case BYTEA -> statement.setBytes(index, (byte[]) columnValue);
            default -> throw new IllegalStateException(type.toString());
        }
    }

    /** The column value in the result's column. */
    public Object read(ResultSet rs, int column) throws SQLException {
        return switch (type) {
            case BIGINT -> rs.getLong(column);
            case INTEGER -> rs.getInt(column);
            case TEXT -> rs.getString(column);
            case BYTEA -> rs.getBytes(column);
        };
    }
}
