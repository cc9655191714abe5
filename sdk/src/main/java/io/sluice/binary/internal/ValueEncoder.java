package io.sluice.binary.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteOrder;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static io.sluice.binary.internal.BinaryTags.*;

/**
 * Writes tagged values (layouts in {@code docs/binary-format.md}). Scalars, boxed primitives and
 * strings are written straight into the buffer without allocating. Signed integers are stored
 * big-endian with the sign bit flipped, and floating-point numbers with the order-preserving
 * transform, so that unsigned byte order equals numeric order.
 */
final class ValueEncoder {

    private final BinaryContext context;

    ValueEncoder(BinaryContext context) {
        this.context = context;
    }

    /** Containers nested deeper than this are taken for a collection that contains itself. */
    static final int MAX_DEPTH = ValueReader.MAX_DEPTH;

    void encode(Object v, GrowableBuffer out) {
        encode(v, out, 0);
    }

    private void encode(Object v, GrowableBuffer out, int depth) {
        if (v == null) {
            out.putByte(NULL);
            return;
        }
        Class<?> c = v.getClass();
        if (c == Long.class) {
            writeLong(out, (Long) v);
        } else if (c == String.class) {
            writeString(out, (String) v);
        } else if (c == Integer.class) {
            writeInt(out, (Integer) v);
        } else if (c == Double.class) {
            writeDouble(out, (Double) v);
        } else if (c == BinaryObjectImpl.class) {
            BinaryObjectImpl o = (BinaryObjectImpl) v;
            out.putBytes(o.bytes, o.start, o.length);
        } else if (c == Boolean.class) {
            writeBoolean(out, (Boolean) v);
        } else {
            encodeOther(v, c, out, depth);
        }
    }

    private void encodeOther(Object v, Class<?> c, GrowableBuffer out, int depth) {
        if (depth >= MAX_DEPTH) {
            throw new IllegalArgumentException("values nested deeper than " + MAX_DEPTH + " at a " + c.getName()
                    + "; does a collection contain itself?");
        }
        boolean[] marshalled = MARSHALLED.get(c);
        if (!marshalled[0]) {
            if (encodeNamed(v, c, out, depth)) {
                return;
            }
            marshalled[0] = true; // once: no store per value to a line every producer thread reads
        }
        context.marshal(v, out);
    }

    /** Plain copies of 4 or 8 bytes (the byte order does not matter: read and written alike). */
    private static final VarHandle BYTES_AS_LONGS = MethodHandles.byteArrayViewVarHandle(long[].class,
            ByteOrder.nativeOrder());
    private static final VarHandle BYTES_AS_INTS = MethodHandles.byteArrayViewVarHandle(int[].class,
            ByteOrder.nativeOrder());

    /**
     * Per class, whether {@link #encodeNamed} found it none of the types it names (the answer depends on the class
     * alone): its instances then go straight to marshalling, past two dozen checks that cost a POJO value more
     * than a third of its marshalling time (issue 29). Set racily, to true only.
     */
    private static final ClassValue<boolean[]> MARSHALLED = new ClassValue<>() {
        @Override
        protected boolean[] computeValue(Class<?> type) {
            return new boolean[1];
        }
    };

    /** Writes a value of one of the types other than POJOs; false (nothing written) for a POJO. */
    private boolean encodeNamed(Object v, Class<?> c, GrowableBuffer out, int depth) {
        if (c == Float.class) {
            writeFloat(out, (Float) v);
        } else if (c == Short.class) {
            writeShort(out, (Short) v);
        } else if (c == Byte.class) {
            writeByte(out, (Byte) v);
        } else if (c == Character.class) {
            writeChar(out, (Character) v);
        } else if (c == byte[].class) {
            byte[] b = (byte[]) v;
            out.putByte(BYTES).putInt(b.length).putBytes(b);
        } else if (c == UUID.class) {
            UUID u = (UUID) v;
            out.putByte(UUID_TAG).putLong(u.getMostSignificantBits() ^ Long.MIN_VALUE)
                    .putLong(u.getLeastSignificantBits() ^ Long.MIN_VALUE);
        } else if (c == Instant.class) {
            Instant i = (Instant) v;
            out.putByte(INSTANT).putLong(i.getEpochSecond() ^ Long.MIN_VALUE).putInt(i.getNano());
        } else if (c == LocalDate.class) {
            out.putByte(LOCAL_DATE).putLong(((LocalDate) v).toEpochDay() ^ Long.MIN_VALUE);
        } else if (c == LocalDateTime.class) {
            LocalDateTime t = (LocalDateTime) v;
            out.putByte(LOCAL_DATE_TIME).putLong(t.toLocalDate().toEpochDay() ^ Long.MIN_VALUE)
                    .putLong(t.toLocalTime().toNanoOfDay());
        } else if (c == BigDecimal.class) {
            BigDecimal d = (BigDecimal) v;
            byte[] unscaled = d.unscaledValue().toByteArray();
            out.putByte(BIG_DECIMAL).putInt(d.scale() ^ Integer.MIN_VALUE).putInt(unscaled.length).putBytes(unscaled);
        } else if (c == BigInteger.class) {
            byte[] b = ((BigInteger) v).toByteArray();
            out.putByte(BIG_INTEGER).putInt(b.length).putBytes(b);
        } else if (c == AtomicLong.class) {
            writeLong(out, ((AtomicLong) v).get());
        } else if (c == AtomicInteger.class) {
            writeInt(out, ((AtomicInteger) v).get());
        } else if (c.isEnum() || (v instanceof Enum<?>)) {
            writeString(out, ((Enum<?>) v).name());
        } else if (c.isArray()) {
            encodeArray(v, c.getComponentType(), out, depth);
        } else if (v instanceof Collection<?>) {
            Collection<?> col = (Collection<?>) v;
            out.putByte(v instanceof Set<?> ? SET : LIST).putInt(col.size());
            int n = 0;
            for (Object e : col) {
                encode(e, out, depth + 1);
                n++;
            }
            checkCount(col.size(), n, c);
        } else if (v instanceof Map<?, ?>) {
            Map<?, ?> map = (Map<?, ?>) v;
            out.putByte(MAP).putInt(map.size());
            int n = 0;
            for (Map.Entry<?, ?> e : map.entrySet()) {
                encode(e.getKey(), out, depth + 1);
                encode(e.getValue(), out, depth + 1);
                n++;
            }
            checkCount(map.size(), n, c);
        } else if (v instanceof io.sluice.binary.BinaryObject) {
            // Not one of ours: its bytes are checked before they become part of a stored value.
            byte[] b = ((io.sluice.binary.BinaryObject) v).toBytes();
            checkForeignObject(b, c);
            out.putBytes(b);
        } else {
            return false;
        }
        return true;
    }

    /** The bytes of a BinaryObject implemented outside Sluice must be exactly one well-formed object. */
    private void checkForeignObject(byte[] b, Class<?> c) {
        if (b == null || b.length == 0 || b[0] != OBJECT) {
            throw new io.sluice.binary.BinaryFormatException("a " + c.getName() + " (a BinaryObject) gave "
                    + (b == null ? "null" : b.length == 0 ? "no bytes" : String.format("bytes starting with tag 0x%02x", b[0]))
                    + " from toBytes(), not a binary object");
        }
        try {
            context.decode(b, 0, b.length, true);
        } catch (io.sluice.binary.BinaryFormatException e) {
            throw new io.sluice.binary.BinaryFormatException("a " + c.getName() + " (a BinaryObject) gave malformed"
                    + " bytes from toBytes(): " + e.getMessage());
        }
    }

    private static void checkCount(int size, int iterated, Class<?> c) {
        if (size != iterated) {
            throw new java.util.ConcurrentModificationException(c.getName() + " reported size " + size
                    + " but iterated " + iterated + " elements while being encoded");
        }
    }

    private void encodeArray(Object v, Class<?> e, GrowableBuffer out, int depth) {
        if (e == long.class) {
            long[] a = (long[]) v;
            out.putByte(LONG_ARRAY).putInt(a.length);
            for (long x : a) {
                out.putLong(x ^ Long.MIN_VALUE);
            }
        } else if (e == int.class) {
            int[] a = (int[]) v;
            out.putByte(INT_ARRAY).putInt(a.length);
            for (int x : a) {
                out.putInt(x ^ Integer.MIN_VALUE);
            }
        } else if (e == double.class) {
            double[] a = (double[]) v;
            out.putByte(DOUBLE_ARRAY).putInt(a.length);
            for (double x : a) {
                out.putLong(orderedBits(x));
            }
        } else if (e == float.class) {
            float[] a = (float[]) v;
            out.putByte(FLOAT_ARRAY).putInt(a.length);
            for (float x : a) {
                out.putInt(orderedBits(x));
            }
        } else if (e == short.class) {
            short[] a = (short[]) v;
            out.putByte(SHORT_ARRAY).putInt(a.length);
            for (short x : a) {
                out.putShort(x ^ 0x8000);
            }
        } else if (e == char.class) {
            char[] a = (char[]) v;
            out.putByte(CHAR_ARRAY).putInt(a.length);
            for (char x : a) {
                out.putShort(x);
            }
        } else if (e == boolean.class) {
            boolean[] a = (boolean[]) v;
            out.putByte(BOOLEAN_ARRAY).putInt(a.length);
            for (boolean x : a) {
                out.putByte(x ? 1 : 0);
            }
        } else {
            Object[] a = (Object[]) v;
            out.putByte(OBJECT_ARRAY).putInt(a.length);
            for (Object x : a) {
                encode(x, out, depth + 1);
            }
        }
    }

    static void writeLong(GrowableBuffer out, long v) {
        out.ensureRemaining(9);
        out.putByte(LONG).putLong(v ^ Long.MIN_VALUE);
    }

    static void writeInt(GrowableBuffer out, int v) {
        out.ensureRemaining(5);
        out.putByte(INT).putInt(v ^ Integer.MIN_VALUE);
    }

    static void writeShort(GrowableBuffer out, short v) {
        out.putByte(SHORT).putShort(v ^ 0x8000);
    }

    static void writeByte(GrowableBuffer out, byte v) {
        out.putByte(BYTE).putByte(v ^ 0x80);
    }

    static void writeChar(GrowableBuffer out, char v) {
        out.putByte(CHAR).putShort(v);
    }

    static void writeBoolean(GrowableBuffer out, boolean v) {
        out.putByte(BOOLEAN).putByte(v ? 1 : 0);
    }

    static void writeDouble(GrowableBuffer out, double v) {
        out.ensureRemaining(9);
        out.putByte(DOUBLE).putLong(orderedBits(v));
    }

    static void writeFloat(GrowableBuffer out, float v) {
        out.putByte(FLOAT).putInt(orderedBits(v));
    }

    /** Positive numbers get the sign bit set, negative ones are inverted: unsigned order = numeric order. */
    static long orderedBits(double v) {
        long bits = Double.doubleToLongBits(v);
        return bits ^ ((bits >> 63) | Long.MIN_VALUE);
    }

    static int orderedBits(float v) {
        int bits = Float.floatToIntBits(v);
        return bits ^ ((bits >> 31) | Integer.MIN_VALUE);
    }

    static double fromOrderedBits(long e) {
        return Double.longBitsToDouble(e < 0 ? e ^ Long.MIN_VALUE : ~e);
    }

    static float fromOrderedBits(int e) {
        return Float.intBitsToFloat(e < 0 ? e ^ Integer.MIN_VALUE : ~e);
    }

    /**
     * STRING: the UTF-8 bytes, with U+0000 written as 00 FF, then a 00 terminator; unsigned byte
     * order of the encoding equals code point order of the strings. Unpaired surrogates become
     * '?', as in {@code String.getBytes(UTF_8)}.
     */
    /**
     * Writes a string. The common case — only ASCII, no NUL — checks the chars in one tight loop and
     * then copies them in bulk ({@link String#getBytes(int, int, byte[], int)}, a plain array copy for
     * the JDK's Latin-1 strings), instead of converting char by char.
     */
    @SuppressWarnings("deprecation") // getBytes(int, int, byte[], int) drops each char's high byte: all are ASCII here
    static void writeString(GrowableBuffer out, String s) {
        int len = s.length();
        out.ensureRemaining((int) Math.min(3L * len + 2, Integer.MAX_VALUE - 32));
        byte[] a = out.array();
        int p = out.position();
        a[p++] = STRING;
        int ascii = asciiPrefix(s, len);
        if (ascii == len) {
            s.getBytes(0, len, a, p);
            p += len;
        } else {
            s.getBytes(0, ascii, a, p);
            p = writeNonAscii(s, ascii, a, p + ascii);
        }
        a[p++] = 0;
        out.position(p);
    }

    /**
     * Writes {@code length} chars of {@code chars} from {@code offset} as a STRING, the same bytes as
     * {@link #writeString(GrowableBuffer, String)} of {@code new String(chars, offset, length)}, without
     * that String (a JSON parser's text buffer goes straight into the value).
     */
    static void writeString(GrowableBuffer out, char[] chars, int offset, int length) {
        if (offset < 0 || length < 0 || offset > chars.length - length) {
            throw new IndexOutOfBoundsException("chars " + offset + ".." + ((long) offset + length) + " of " + chars.length);
        }
        out.ensureRemaining((int) Math.min(3L * length + 2, Integer.MAX_VALUE - 32));
        byte[] a = out.array();
        int p = out.position();
        a[p++] = STRING;
        int i = 0;
        for (; i < length; i++) {
            char c = chars[offset + i];
            if ((char) (c - 1) >= 0x7F) {
                break;
            }
            a[p++] = (byte) c;
        }
        if (i < length) {
            p = writeNonAscii(java.nio.CharBuffer.wrap(chars, offset, length), i, a, p); // rare: not ASCII
        }
        a[p++] = 0;
        out.position(p);
    }

    /**
     * Writes {@code length} bytes of {@code ascii} from {@code offset} as a STRING: the bytes of
     * {@link #writeString(GrowableBuffer, String)} for the String of those chars, copied as they are. The caller
     * guarantees every byte is in 0x01..0x7F (ASCII other than NUL encodes as itself); nothing checks it here.
     */
    static void writeAsciiString(GrowableBuffer out, byte[] ascii, int offset, int length) {
        if (offset < 0 || length < 0 || offset > ascii.length - length) {
            throw new IndexOutOfBoundsException("bytes " + offset + ".." + ((long) offset + length) + " of " + ascii.length);
        }
        out.ensureRemaining(length + 2);
        byte[] a = out.array();
        int p = out.position();
        a[p++] = STRING;
        copySmall(ascii, offset, a, p, length);
        p += length;
        a[p++] = 0;
        out.position(p);
    }

    /**
     * {@code System.arraycopy} for the short text of most fields: up to 16 bytes as two overlapping longs (or ints,
     * or bytes), without the call to the copy stub that the intrinsic makes for a length it does not know.
     */
    private static void copySmall(byte[] from, int offset, byte[] to, int at, int length) {
        if (length >= 8 && length <= 16) {
            long head = (long) BYTES_AS_LONGS.get(from, offset);
            long tail = (long) BYTES_AS_LONGS.get(from, offset + length - 8);
            BYTES_AS_LONGS.set(to, at, head);
            BYTES_AS_LONGS.set(to, at + length - 8, tail);
        } else if (length >= 4 && length < 8) {
            int head = (int) BYTES_AS_INTS.get(from, offset);
            int tail = (int) BYTES_AS_INTS.get(from, offset + length - 4);
            BYTES_AS_INTS.set(to, at, head);
            BYTES_AS_INTS.set(to, at + length - 4, tail);
        } else if (length < 4) {
            for (int k = 0; k < length; k++) {
                to[at + k] = from[offset + k];
            }
        } else {
            System.arraycopy(from, offset, to, at, length);
        }
    }

    /** How many leading chars are ASCII other than NUL (they encode as themselves). */
    private static int asciiPrefix(String s, int len) {
        for (int i = 0; i < len; i++) {
            if ((char) (s.charAt(i) - 1) >= 0x7F) {
                return i;
            }
        }
        return len;
    }

    /** The rest of a string from its first non-ASCII (or NUL) char; returns the new position. */
    private static int writeNonAscii(CharSequence s, int from, byte[] a, int p) {
        int len = s.length();
        for (int i = from; i < len; i++) {
            char c = s.charAt(i);
            if (c < 0x80 && c != 0) {
                a[p++] = (byte) c;
            } else if (c == 0) {
                a[p++] = 0;
                a[p++] = (byte) 0xFF;
            } else if (c < 0x800) {
                a[p++] = (byte) (0xC0 | (c >> 6));
                a[p++] = (byte) (0x80 | (c & 0x3F));
            } else if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < len && Character.isLowSurrogate(s.charAt(i + 1))) {
                    int cp = Character.toCodePoint(c, s.charAt(++i));
                    a[p++] = (byte) (0xF0 | (cp >> 18));
                    a[p++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
                    a[p++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
                    a[p++] = (byte) (0x80 | (cp & 0x3F));
                } else {
                    a[p++] = '?';
                }
            } else {
                a[p++] = (byte) (0xE0 | (c >> 12));
                a[p++] = (byte) (0x80 | ((c >> 6) & 0x3F));
                a[p++] = (byte) (0x80 | (c & 0x3F));
            }
        }
        return p;
    }
}
