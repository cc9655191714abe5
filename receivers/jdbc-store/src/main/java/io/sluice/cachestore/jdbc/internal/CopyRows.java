package io.sluice.cachestore.jdbc.internal;


import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * Rows of (key, value) in PostgreSQL's binary COPY format, for {@code COPY ... FROM STDIN (FORMAT binary)}.
 *
 * <pre>
 * | bytes | meaning                                              |
 * |-------|------------------------------------------------------|
 * | 11    | signature "PGCOPY\n\377\r\n\0"                       |
 * | 4     | flags: 0                                             |
 * | 4     | header extension length: 0                           |
 * | per row: 2 | field count: 2                                  |
 * |   4 + n    | key: length, then bigint/int (big-endian), text (UTF-8) or bytea bytes |
 * |   4 + n    | value: length, then the bytea bytes             |
 * | 2     | trailer: -1                                          |
 * </pre>
 */
public final class CopyRows {

    private static final byte[] SIGNATURE = {'P', 'G', 'C', 'O', 'P', 'Y', '\n', (byte) 0xFF, '\r', '\n', 0};

    private final ByteArrayOutputStream bytes;
    private final DataOutputStream out;
    private final KeyColumn keyType;

    public CopyRows(KeyColumn keyType, int expectedBytes) {
        this.keyType = keyType;
        this.bytes = new ByteArrayOutputStream(Math.max(64, expectedBytes));
        this.out = new DataOutputStream(bytes);
        try {
            out.write(SIGNATURE);
            out.writeInt(0);
            out.writeInt(0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Adds a row. @param key the key's column value ({@link KeyBinder#columnValue}) */
    public void add(Object key, byte[] value) {
        try {
            out.writeShort(2);
            switch (keyType) {
                case BIGINT -> {
                    out.writeInt(8);
                    out.writeLong((Long) key);
                }
                case INTEGER -> {
                    out.writeInt(4);
                    out.writeInt((Integer) key);
                }
                case TEXT -> {
                    byte[] text = ((String) key).getBytes(StandardCharsets.UTF_8);
                    out.writeInt(text.length);
                    out.write(text);
                }
                case BYTEA -> {
                    byte[] b = (byte[]) key;
                    out.writeInt(b.length);
                    out.write(b);
                }
                default -> throw new IllegalStateException(keyType.toString());
            }
            out.writeInt(value.length);
            out.write(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The whole stream, trailer included. */
    public byte[] finish() {
        try {
            out.writeShort(-1);
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }
}
