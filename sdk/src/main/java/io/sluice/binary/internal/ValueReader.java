package io.sluice.binary.internal;

import io.sluice.binary.BinaryFormatException;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.UUID;

import static io.sluice.binary.internal.BinaryTags.*;

/**
 * Reads tagged values from {@code [position, limit)} of an array. Every read is bounds-checked
 * against the limit and every count against the bytes left, so bad input ends in a
 * {@link BinaryFormatException} naming the offset (relative to {@code base}), never in an index,
 * allocation or stack failure.
 */
final class ValueReader {

    /** Nesting deeper than this is taken as corruption rather than risking the stack. */
    static final int MAX_DEPTH = 100;

    private final BinaryContext context;
    private final byte[] b;
    private final int base;
    private final int limit;
    private final boolean keepBinary;
    private int pos;
    private int depth;

    ValueReader(BinaryContext context, byte[] bytes, int base, int position, int limit, boolean keepBinary) {
        this.context = context;
        this.b = bytes;
        this.base = base;
        this.pos = position;
        this.limit = limit;
        this.keepBinary = keepBinary;
    }

    int position() {
        return pos;
    }

    /**
     * Reads one value which must end exactly at the limit.
     *
     * @param field the field whose value this is, for the error message; null for a whole value
     */
    Object readWhole(String field) {
        Object v = read();
        if (pos != limit) {
            String what = field == null ? "value" : "field '" + field + "'";
            throw new BinaryFormatException(what + " ends at offset " + (pos - base) + " but its length says "
                    + (limit - base));
        }
        return v;
    }

    private BinaryFormatException error(String message, int at) {
        return new BinaryFormatException(message + " at offset " + (at - base));
    }

    private void need(int n) {
        if (n < 0 || limit - pos < n) {
            throw error(n + " bytes needed but " + (limit - pos) + " remain", pos);
        }
    }

    private int count(int elementSize) {
        need(4);
        int at = pos;
        int n = GrowableBuffer.getInt(b, pos);
        pos += 4;
        if (n < 0 || (long) n * elementSize > limit - pos) {
            throw error("count " + n + " of " + elementSize + "-byte elements exceeds the " + (limit - pos)
                    + " bytes remaining", at);
        }
        return n;
    }

    private long getLong() {
        need(8);
        long v = GrowableBuffer.getLong(b, pos);
        pos += 8;
        return v;
    }

    private int getInt() {
        need(4);
        int v = GrowableBuffer.getInt(b, pos);
        pos += 4;
        return v;
    }

    private short getShort() {
        need(2);
        short v = GrowableBuffer.getShort(b, pos);
        pos += 2;
        return v;
    }

    private byte getByte() {
        need(1);
        return b[pos++];
    }

    Object read() {
        int at = pos;
        byte tag = getByte();
        switch (tag) {
            case NULL:
                return null;
            case BOOLEAN: {
                byte v = getByte();
                if (v != 0 && v != 1) {
                    throw error("boolean byte " + v + " is neither 0 nor 1", pos - 1);
                }
                return v == 1;
            }
            case BYTE:
                return (byte) (getByte() ^ 0x80);
            case SHORT:
                return (short) (getShort() ^ 0x8000);
            case CHAR:
                return (char) getShort();
            case INT:
                return getInt() ^ Integer.MIN_VALUE;
            case LONG:
                return getLong() ^ Long.MIN_VALUE;
            case FLOAT:
                return ValueEncoder.fromOrderedBits(getInt());
            case DOUBLE:
                return ValueEncoder.fromOrderedBits(getLong());
            case STRING:
                return readString();
            case BYTES: {
                int n = count(1);
                byte[] v = java.util.Arrays.copyOfRange(b, pos, pos + n);
                pos += n;
                return v;
            }
            case UUID_TAG:
                return new UUID(getLong() ^ Long.MIN_VALUE, getLong() ^ Long.MIN_VALUE);
            case INSTANT: {
                long seconds = getLong() ^ Long.MIN_VALUE;
                int nanos = getInt();
                if (nanos < 0 || nanos > 999_999_999) { // the one encoding of an instant has its nanos in range
                    throw error("instant " + seconds + "s " + nanos + "ns out of range", at);
                }
                try {
                    return Instant.ofEpochSecond(seconds, nanos);
                } catch (RuntimeException e) {
                    throw error("instant " + seconds + "s " + nanos + "ns out of range", at);
                }
            }
            case LOCAL_DATE: {
                long day = getLong() ^ Long.MIN_VALUE;
                try {
                    return LocalDate.ofEpochDay(day);
                } catch (RuntimeException e) {
                    throw error("epoch day " + day + " out of range", at);
                }
            }
            case LOCAL_DATE_TIME: {
                long day = getLong() ^ Long.MIN_VALUE;
                long nanos = getLong();
                try {
                    return LocalDateTime.of(LocalDate.ofEpochDay(day), LocalTime.ofNanoOfDay(nanos));
                } catch (RuntimeException e) {
                    throw error("date-time " + day + "d " + nanos + "ns out of range", at);
                }
            }
            case BIG_DECIMAL: {
                int scale = getInt() ^ Integer.MIN_VALUE;
                return new BigDecimal(readBigInteger(at), scale);
            }
            case BIG_INTEGER:
                return readBigInteger(at);
            case BOOLEAN_ARRAY: {
                boolean[] v = new boolean[count(1)];
                for (int i = 0; i < v.length; i++) {
                    v[i] = b[pos++] != 0;
                }
                return v;
            }
            case SHORT_ARRAY: {
                short[] v = new short[count(2)];
                for (int i = 0; i < v.length; i++) {
                    v[i] = (short) (getShort() ^ 0x8000);
                }
                return v;
            }
            case CHAR_ARRAY: {
                char[] v = new char[count(2)];
                for (int i = 0; i < v.length; i++) {
                    v[i] = (char) getShort();
                }
                return v;
            }
            case INT_ARRAY: {
                int[] v = new int[count(4)];
                for (int i = 0; i < v.length; i++) {
                    v[i] = getInt() ^ Integer.MIN_VALUE;
                }
                return v;
            }
            case LONG_ARRAY: {
                long[] v = new long[count(8)];
                for (int i = 0; i < v.length; i++) {
                    v[i] = getLong() ^ Long.MIN_VALUE;
                }
                return v;
            }
            case FLOAT_ARRAY: {
                float[] v = new float[count(4)];
                for (int i = 0; i < v.length; i++) {
                    v[i] = ValueEncoder.fromOrderedBits(getInt());
                }
                return v;
            }
            case DOUBLE_ARRAY: {
                double[] v = new double[count(8)];
                for (int i = 0; i < v.length; i++) {
                    v[i] = ValueEncoder.fromOrderedBits(getLong());
                }
                return v;
            }
            case OBJECT_ARRAY: {
                Object[] v = new Object[count(1)];
                enter(at);
                for (int i = 0; i < v.length; i++) {
                    v[i] = read();
                }
                depth--;
                return v;
            }
            case LIST:
            case SET: {
                int n = count(1);
                enter(at);
                java.util.Collection<Object> v = tag == LIST ? new ArrayList<>(n) : new LinkedHashSet<>(capacity(n));
                for (int i = 0; i < n; i++) {
                    v.add(read());
                }
                depth--;
                return v;
            }
            case MAP: {
                int n = count(2);
                enter(at);
                Map<Object, Object> v = new LinkedHashMap<>(capacity(n));
                for (int i = 0; i < n; i++) {
                    Object k = read();
                    v.put(k, read());
                }
                depth--;
                return v;
            }
            case OBJECT: {
                BinaryObjectImpl o = BinaryObjectImpl.wrap(context, b, at, limit, base);
                pos = at + o.length;
                return keepBinary ? o : context.deserializeIfClass(o);
            }
            default:
                throw error(String.format("unknown tag 0x%02x", tag & 0xff), at);
        }
    }

    private static int capacity(int n) {
        return (int) Math.min((long) n * 4 / 3 + 1, 1 << 20);
    }

    private void enter(int at) {
        if (++depth > MAX_DEPTH) {
            throw error("values nested deeper than " + MAX_DEPTH, at);
        }
    }

    private BigInteger readBigInteger(int at) {
        int n = count(1);
        if (n == 0) {
            throw error("big integer with no bytes", at);
        }
        BigInteger v = new BigInteger(b, pos, n);
        pos += n;
        return v;
    }

    /**
     * The string encoded in exactly {@code [from, to)} (tag included) if it has no escaped NUL, else
     * null (the caller falls back to a reader, which also reports malformed bytes).
     */
    static String plainString(byte[] b, int from, int to) {
        int last = to - 1;
        if (last <= from || b[last] != 0) {
            return null;
        }
        for (int i = from + 1; i < last; i++) {
            if (b[i] == 0) {
                return null;
            }
        }
        return new String(b, from + 1, last - from - 1, StandardCharsets.UTF_8);
    }

    /** UTF-8 up to a 00 not followed by FF; 00 FF is U+0000. */
    private String readString() {
        int start = pos;
        int escapes = 0;
        int i = start;
        while (true) {
            if (i >= limit) {
                throw error("string has no terminator", start - 1);
            }
            if (b[i] == 0) {
                if (i + 1 < limit && b[i + 1] == (byte) 0xFF) {
                    escapes++;
                    i += 2;
                    continue;
                }
                break;
            }
            i++;
        }
        pos = i + 1;
        if (escapes == 0) {
            return new String(b, start, i - start, StandardCharsets.UTF_8);
        }
        byte[] raw = new byte[i - start - escapes];
        int w = 0;
        for (int r = start; r < i; r++) {
            raw[w++] = b[r];
            if (b[r] == 0) {
                r++;
            }
        }
        return new String(raw, 0, w, StandardCharsets.UTF_8);
    }
}
