package io.sluice.samples.load;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;

/**
 * The raw baseline's storage: StockOrders serialized field by field into one direct (off-heap)
 * buffer, back to back. Written through absolute-index puts, so the arena keeps no position state
 * beyond its end; nothing is allocated per record.
 *
 * <p>Layout of a record (big-endian); a string is {@code [int length][length ASCII bytes]}:
 * <pre>
 * size      field
 * 4 + n     secCode
 * 8         price (double)
 * 8         quantity (long)
 * 4 + n     buySell
 * 4 + n     secBoard
 * 4 + n     account
 * 4 + n     user
 * 4 + n     currency
 * 8         commission (double)
 * 4 + n     status
 * 1         marketMaker (0 or 1)
 * 4 + n     pad (n = 0 without padding)
 * </pre>
 * The workload's strings are ASCII, so a char is written as one byte.
 */
final class RawOrderArena {

    private static final int FIXED = 8 + 8 + 8 + 1 + 8 * 4;

    private final ByteBuffer buffer;
    private int end;

    /**
     * @param capacity bytes, at most {@link Integer#MAX_VALUE}
     * @throws IllegalArgumentException if capacity does not fit one buffer
     */
    RawOrderArena(long capacity) {
        if (capacity > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("the raw arena of one thread would need " + capacity
                    + " bytes; one direct buffer holds at most " + Integer.MAX_VALUE
                    + " (raise --threads, or lower --entries or --value-size)");
        }
        this.buffer = ByteBuffer.allocateDirect((int) capacity);
    }

    /** Bytes the key's record takes. */
    static int recordSize(long key, String pad) {
        return FIXED + StockOrderFields.SEC_CODE.length() + StockOrderFields.buySell(key).length()
                + StockOrderFields.SEC_BOARD.length() + StockOrderFields.ACCOUNT.length()
                + StockOrderFields.user(key).length() + StockOrderFields.CURRENCY.length()
                + StockOrderFields.STATUS.length() + (pad == null ? 0 : pad.length());
    }

    /** Bytes written so far. */
    int used() {
        return end;
    }

    /**
     * Appends the key's record.
     *
     * @return its offset
     * @throws IllegalStateException if the arena is full
     */
    int append(long key, String pad) {
        int at = end;
        int size = recordSize(key, pad);
        if (size > buffer.capacity() - at) {
            throw new IllegalStateException("raw arena full: " + at + " of " + buffer.capacity()
                    + " bytes used, record of key " + key + " needs " + size);
        }
        end = write(at, key, pad);
        return at;
    }

    /** Writes the key's record at an offset where a record of the same key (and so the same size) is. */
    void overwrite(int at, long key, String pad) {
        write(at, key, pad);
    }

    private int write(int at, long key, String pad) {
        at = putString(at, StockOrderFields.SEC_CODE);
        buffer.putDouble(at, StockOrderFields.price(key));
        buffer.putLong(at + 8, StockOrderFields.quantity(key));
        at = putString(at + 16, StockOrderFields.buySell(key));
        at = putString(at, StockOrderFields.SEC_BOARD);
        at = putString(at, StockOrderFields.ACCOUNT);
        at = putString(at, StockOrderFields.user(key));
        at = putString(at, StockOrderFields.CURRENCY);
        buffer.putDouble(at, StockOrderFields.commission(key));
        at = putString(at + 8, StockOrderFields.STATUS);
        buffer.put(at, (byte) (StockOrderFields.marketMaker(key) ? 1 : 0));
        return putString(at + 1, pad == null ? "" : pad);
    }

    private int putString(int at, String s) {
        int n = s.length();
        buffer.putInt(at, n);
        at += 4;
        for (int i = 0; i < n; i++) {
            buffer.put(at + i, (byte) s.charAt(i));
        }
        return at + n;
    }

    /** Decodes the record at an offset into field name to value (for verification; allocates). */
    Map<String, Object> read(int at) {
        Map<String, Object> fields = new HashMap<>();
        int[] cursor = {at};
        fields.put("secCode", getString(cursor));
        fields.put("price", buffer.getDouble(cursor[0]));
        fields.put("quantity", buffer.getLong(cursor[0] + 8));
        cursor[0] += 16;
        fields.put("buySell", getString(cursor));
        fields.put("secBoard", getString(cursor));
        fields.put("account", getString(cursor));
        fields.put("user", getString(cursor));
        fields.put("currency", getString(cursor));
        fields.put("commission", buffer.getDouble(cursor[0]));
        cursor[0] += 8;
        fields.put("status", getString(cursor));
        fields.put("marketMaker", buffer.get(cursor[0]) == 1);
        cursor[0] += 1;
        String pad = getString(cursor);
        fields.put(StockOrderFields.PAD, pad.isEmpty() ? null : pad);
        return fields;
    }

    private String getString(int[] cursor) {
        int n = buffer.getInt(cursor[0]);
        byte[] bytes = new byte[n];
        buffer.get(cursor[0] + 4, bytes);
        cursor[0] += 4 + n;
        return new String(bytes, java.nio.charset.StandardCharsets.US_ASCII);
    }
}
