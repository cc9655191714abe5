package io.sluice.cachestore.jdbc.internal;


import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Collection;
import java.util.List;

/**
 * Rows as the two arrays of one statement ({@code unnest(keys, values)}), and keys as the typed array of an
 * {@code = ANY(?)}. The arrays are bound with {@code setObject} as Java arrays ({@code long[]}, {@code int[]},
 * {@code String[]}, {@code byte[][]}), which pgjdbc sends in the binary array format; boxed {@code Long[]}
 * through {@code createArrayOf} cost ~1.3–1.5× more per batch in the probe of the 2026-11-23 results entry
 * (boxing, and a type lookup per array).
 */
public final class RowArrays {

    /** A row to write: the key's column value and the value's column value (bytes, or JSON text for jsonb). */
    public record Row(Object key, Object value) {
    }

    private RowArrays() {
    }

    /** Key column values as the typed array pgjdbc binds with {@code createArrayOf} (byte[][] for bytea). */
    public static Object[] typedKeys(KeyColumn type, List<Object> columns) {
        return switch (type) {
            case BIGINT -> columns.toArray(new Long[0]);
            case INTEGER -> columns.toArray(new Integer[0]);
            case TEXT -> columns.toArray(new String[0]);
            case BYTEA -> columns.toArray(new byte[0][]);
        };
    }

    /**
     * Binds the rows' keys to parameter 1 and their values to parameter 2, each as one array.
     *
     * @param json whether the values are JSON text ({@code String[]}) rather than bytes ({@code byte[][]})
     */
    public static void bind(PreparedStatement s, KeyColumn type, boolean json, Collection<Row> rows)
            throws SQLException {
        int n = rows.size();
        Object keyArray;
        Object[] valueArray = json ? new String[n] : new byte[n][];
        int i = 0;
        switch (type) {
            case BIGINT -> {
                long[] ks = new long[n];
                for (Row row : rows) {
                    ks[i] = (Long) row.key();
                    valueArray[i++] = row.value();
                }
                keyArray = ks;
            }
            case INTEGER -> {
                int[] ks = new int[n];
                for (Row row : rows) {
                    ks[i] = (Integer) row.key();
                    valueArray[i++] = row.value();
                }
                keyArray = ks;
            }
            case TEXT -> {
                String[] ks = new String[n];
                for (Row row : rows) {
                    ks[i] = (String) row.key();
                    valueArray[i++] = row.value();
                }
                keyArray = ks;
            }
            case BYTEA -> {
                byte[][] ks = new byte[n][];
                for (Row row : rows) {
                    ks[i] = (byte[]) row.key();
                    valueArray[i++] = row.value();
                }
                keyArray = ks;
            }
            default -> throw new IllegalStateException(type.toString());
        }
        s.setObject(1, keyArray);
        s.setObject(2, valueArray);
    }
}
