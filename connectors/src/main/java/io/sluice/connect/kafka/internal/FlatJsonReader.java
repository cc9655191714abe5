package io.sluice.connect.kafka.internal;

import com.fasterxml.jackson.core.io.NumberInput;
import io.sluice.binary.BinaryObject;
import io.sluice.binary.internal.AsciiStringBuilder;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The common record — one JSON object of ASCII fields holding strings, numbers, booleans and nulls — read from
 * its UTF-8 bytes straight into a builder in one pass, without Jackson's per-record parser (creating one cost
 * about 120 ns of the conversion's 440 on StockOrder records, issue 29) and without a list of the values in
 * between: {@link #read} hands each value to the builder as soon as it is read, with the same calls
 * {@link JsonValues}' Jackson path makes, in the same order, and builds once the object's closing brace and what
 * follows it are checked. Anything else — an escape, a byte over 0x7F, a control character, an array or nested
 * object, an integer of 19 digits or more, a syntax error — makes {@link #read} clear the builder
 * ({@link AsciiStringBuilder#clear}) and return null, and the caller parses the record with Jackson, which gives
 * the value or the error. A builder's exception (a field of another type) propagates as it would from Jackson's
 * path, which makes the same calls up to that field. Not thread-safe: one per {@link JsonValues}.
 *
 * <p>Records of a topic mostly repeat their layout: at each field the reader first compares the bytes the previous
 * record had between its values there (separator, name, colon: {@link #sameGap}), and text values go to the
 * builder as their ASCII bytes ({@link AsciiStringBuilder}), not as chars.
 *
 * <p>A float's value is Jackson's: the mantissa (at most 18 significant digits) divided or multiplied by a power of ten
 * when both are exact doubles (mantissa below 2^53, power at most 10^22: one correctly rounded operation, as
 * every exact parser gives); otherwise Jackson's own parser ({@link NumberInput#parseDouble}).
 */
final class FlatJsonReader {

    private static final int MAX_DIGITS = 18;
    /** Longer records and names go to Jackson, whose read constraints (text and name lengths) then apply. */
    private static final int MAX_RECORD = 1 << 20;
    private static final int MAX_NAME = 256;
    /** Longer gaps (a name with much whitespace around it) are not kept: the slow path reads them. */
    private static final int MAX_GAP = MAX_NAME + 64;
    private static final long EXACT_MANTISSA = 1L << 53;
    private static final double[] POWERS = new double[23];
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    static {
        double p = 1;
        for (int i = 0; i < POWERS.length; i++) {
            POWERS[i] = p;
            p *= 10;
        }
    }

    private final NameTable names = new NameTable();
    /** The previous records' names by position, and their bytes. */
    private String[] lastNames = new String[16];
    private byte[][] lastNameBytes = new byte[16][];
    /**
     * By position, the bytes before the previous record's value there: from the end of the value before it (or the
     * record's start) through the name and colon to the value's first byte ({@link #sameGap}).
     */
    private byte[][] gaps = new byte[16][];
    /** The name in each position's gap. */
    private String[] gapNames = new String[16];
    /** A gap of 8 to 16 bytes as its first and last 8 (overlapping), compared without reading the gap's array. */
    private long[] gapHeads = new long[16];
    private long[] gapTails = new long[16];
    private byte[] bytes;
    /** The builder the record's values go to. */
    private AsciiStringBuilder out;
    /** The field's position in the record. */
    private int count;
    /** The field's name, as {@link NameTable} gives it (one String per name). */
    private String name;
    private char[] chars = new char[256];
    private int at;

    /**
     * The first {@code n} bytes read into {@code b} and built, or null if they are not one flat ASCII JSON object
     * this reader reads (then {@code b} holds no field of them).
     *
     * @throws RuntimeException what the builder throws (a field of another type); {@code b} then holds the fields
     *                          set before it, as after the same failure on Jackson's path
     */
    BinaryObject read(byte[] utf8, int n, AsciiStringBuilder b) {
        boolean read;
        bytes = utf8;
        out = b;
        try {
            read = n <= MAX_RECORD && fill(n);
        } finally {
            bytes = null;
        }
        if (!read) {
            b.clear();
            return null;
        }
        return b.build();
    }

    /** Reads the record into the builder: false as soon as a byte is outside the subset. */
    private boolean fill(int n) {
        byte[] utf8 = bytes;
        count = 0;
        at = 0;
        if (sameGap(n)) {
            if (utf8[at] <= ' ' && !skip(n)) {
                return false; // more spaces after the colon than the previous record had
            }
        } else {
            if (!skip(n) || utf8[at] != '{') {
                return false;
            }
            at++;
            if (!skip(n)) {
                return false;
            }
            if (utf8[at] == '}') {
                at++;
                return end(n);
            }
            if (!field(0, n)) {
                return false;
            }
        }
        while (true) {
            if (!value(n)) {
                return false;
            }
            count++;
            int gapFrom = at;
            if (sameGap(n)) {
                // the previous record's separator and name: the next value starts here, or after more spaces
                if (utf8[at] <= ' ' && !skip(n)) {
                    return false;
                }
                continue;
            }
            if (!skip(n)) {
                return false;
            }
            byte c = utf8[at++];
            if (c == '}') {
                return end(n);
            }
            if (c != ',' || !skip(n) || !field(gapFrom, n)) {
                return false;
            }
        }
    }

    /**
     * Whether the bytes at {@code at} are the previous record's gap before the value at this position (its
     * separator, name, colon and spaces) followed by more bytes; if so the field's name is the previous one's and
     * {@code at} is after the gap (on the value, or on more spaces before it). Records of a topic mostly repeat
     * their layout: one comparison of 8 to 16 bytes stands for the punctuation, whitespace and name checks of the
     * slow path.
     */
    private boolean sameGap(int n) {
        int i = count;
        if (i >= gaps.length) {
            return false;
        }
        byte[] gap = gaps[i];
        if (gap == null) {
            return false;
        }
        int len = gap.length;
        if (at + len >= n) {
            return false;
        }
        if (len >= 8 && len <= 16) {
            byte[] b = bytes;
            if ((long) LONGS.get(b, at) != gapHeads[i] || (long) LONGS.get(b, at + len - 8) != gapTails[i]) {
                return false;
            }
        } else if (!sameBytes(gap, at, len)) {
            return false;
        }
        name = gapNames[i];
        at += len;
        return true;
    }

    /**
     * The slow path of a field from its name's opening quote at {@code at} to its value: the name, the colon and
     * the spaces around it. Keeps the bytes from {@code gapFrom} (after the previous value, or the record's start)
     * to the value as this position's gap for the next record.
     */
    private boolean field(int gapFrom, int n) {
        byte[] b = bytes;
        if (b[at] != '"') {
            return false;
        }
        if (!name(n) || !skip(n) || b[at] != ':') {
            return false;
        }
        at++;
        if (!skip(n)) {
            return false;
        }
        int i = count;
        if (i >= gaps.length) {
            gaps = Arrays.copyOf(gaps, Math.max(i + 1, gaps.length * 2));
            gapNames = Arrays.copyOf(gapNames, gaps.length);
            gapHeads = Arrays.copyOf(gapHeads, gaps.length);
            gapTails = Arrays.copyOf(gapTails, gaps.length);
        }
        byte[] gap = gaps[i];
        if (gap == null || gapNames[i] != name || !Arrays.equals(gap, 0, gap.length, b, gapFrom, at)) {
            boolean keep = at - gapFrom <= MAX_GAP;
            gap = keep ? Arrays.copyOfRange(b, gapFrom, at) : null;
            gaps[i] = gap;
            gapNames[i] = keep ? name : null;
            if (keep && gap.length >= 8) {
                gapHeads[i] = (long) LONGS.get(gap, 0);
                gapTails[i] = (long) LONGS.get(gap, gap.length - 8);
            }
        }
        return true;
    }

    /**
     * Reads the name that starts after the quote at {@code at} into {@link #name}, leaving {@code at} after
     * its closing quote. Records of a topic mostly repeat their names in order: when the bytes are the previous
     * record's name at this position followed by a quote, that is the name, found in one comparison and without
     * scanning the text; else the text is scanned and the name looked up in the table.
     */
    private boolean name(int n) {
        int i = count;
        int from = ++at;
        byte[] b = bytes;
        if (i < lastNames.length) {
            byte[] last = lastNameBytes[i];
            if (last != null) {
                int len = last.length;
                if (from + len < n && b[from + len] == '"' && sameBytes(last, from, len)) {
                    name = lastNames[i];
                    at = from + len + 1;
                    return true;
                }
            }
        } else {
            lastNames = Arrays.copyOf(lastNames, Math.max(i + 1, lastNames.length * 2));
            lastNameBytes = Arrays.copyOf(lastNameBytes, lastNames.length);
        }
        if (!text(n) || at - from > MAX_NAME) {
            return false;
        }
        String read = names.name(b, from, at++);
        lastNames[i] = read;
        lastNameBytes[i] = names.lastKey();
        name = read;
        return true;
    }

    /**
     * Whether {@code bytes[from, from + len)} equals {@code key} (of {@code len} bytes). Names and gaps are 4-20
     * bytes: compared by two overlapping longs (or ints) instead of byte by byte.
     */
    private boolean sameBytes(byte[] key, int from, int len) {
        byte[] b = bytes;
        if (len >= 8) {
            int k = 0;
            for (; k < len - 8; k += 8) {
                if ((long) LONGS.get(key, k) != (long) LONGS.get(b, from + k)) {
                    return false;
                }
            }
            return (long) LONGS.get(key, len - 8) == (long) LONGS.get(b, from + len - 8);
        }
        if (len >= 4) {
            return (int) INTS.get(key, 0) == (int) INTS.get(b, from)
                    && (int) INTS.get(key, len - 4) == (int) INTS.get(b, from + len - 4);
        }
        for (int k = 0; k < len; k++) {
            if (key[k] != b[from + k]) {
                return false;
            }
        }
        return true;
    }

    /** The value at {@code at} into the builder (a null is left out, as Jackson's path leaves it). */
    private boolean value(int n) {
        byte c = bytes[at];
        if (c == '"') {
            int s = ++at;
            if (!text(n)) {
                return false;
            }
            out.setAsciiString(name, bytes, s, at++ - s); // checked by text(): 0x20..0x7F, no escape
            return true;
        }
        if (c == 't') {
            if (!word("true", n)) {
                return false;
            }
            out.setBoolean(name, true);
            return true;
        }
        if (c == 'f') {
            if (!word("false", n)) {
                return false;
            }
            out.setBoolean(name, false);
            return true;
        }
        if (c == 'n') {
            return word("null", n);
        }
        return number(n);
    }

    /** Up to the closing quote of ASCII text without escapes or control characters; at ends on the quote. */
    private boolean text(int n) {
        byte[] b = bytes;
        for (int i = at; i < n; i++) {
            byte c = b[i];
            if (c == '"') {
                at = i;
                return true;
            }
            if (c < 0x20 || c == '\\') { // negative: a byte over 0x7F
                return false;
            }
        }
        return false;
    }

    private boolean word(String w, int n) {
        if (at + w.length() > n) {
            return false;
        }
        for (int k = 0; k < w.length(); k++) {
            if (bytes[at + k] != w.charAt(k)) {
                return false;
            }
        }
        at += w.length();
        return true;
    }

    /**
     * A JSON number into the builder: an integer of at most 18 digits as a long, anything with a fraction or
     * exponent as a double.
     */
    private boolean number(int n) {
        byte[] b = bytes;
        int start = at;
        int i = at;
        boolean negative = i < n && b[i] == '-';
        if (negative) {
            i++;
        }
        if (i >= n || !digit(b[i]) || (b[i] == '0' && i + 1 < n && digit(b[i + 1]))) {
            return false;
        }
        long m = 0;
        int from = i;
        for (; i < n; i++) {
            int d = b[i] - '0';
            if (d < 0 || d > 9) {
                break;
            }
            m = m * 10 + d;
        }
        int digits = i - from;
        if (digits > MAX_DIGITS) {
            return false;
        }
        int scale = 0;
        boolean fraction = i < n && b[i] == '.';
        if (fraction) {
            i++;
            int fractionFrom = i;
            for (; i < n; i++) {
                int d = b[i] - '0';
                if (d < 0 || d > 9) {
                    break;
                }
                m = m * 10 + d;
            }
            scale = i - fractionFrom;
            if (scale == 0) {
                return false;
            }
            digits += scale;
            if (digits > MAX_DIGITS) {
                digits = significantDigits(from, i); // leading zeros are not significant ("0.000...")
            }
        }
        boolean exponent = i < n && (b[i] == 'e' || b[i] == 'E');
        if (exponent) {
            i++;
            boolean minus = i < n && b[i] == '-';
            if (i < n && (b[i] == '-' || b[i] == '+')) {
                i++;
            }
            int exponentFrom = i;
            int e = 0;
            for (; i < n && digit(b[i]); i++) {
                e = e * 10 + (b[i] - '0');
                if (i - exponentFrom >= 4) {
                    return false;
                }
            }
            if (i == exponentFrom) {
                return false;
            }
            scale += minus ? e : -e;
        }
        if (digits > MAX_DIGITS) {
            return false;
        }
        at = i;
        if (!fraction && !exponent) {
            out.setLong(name, negative ? -m : m);
            return true;
        }
        double v;
        if (m < EXACT_MANTISSA && scale >= -22 && scale <= 22) {
            v = scale >= 0 ? m / POWERS[scale] : m * POWERS[-scale];
            v = negative ? -v : v;
        } else {
            v = slowDouble(start, i);
        }
        out.setDouble(name, v);
        return true;
    }

    /** The digits in {@code [from, to)} from the first non-zero one on (the mantissa's length, without a '.'). */
    private int significantDigits(int from, int to) {
        byte[] b = bytes;
        int i = from;
        while (i < to && (b[i] == '0' || b[i] == '.')) {
            i++;
        }
        int digits = 0;
        for (; i < to; i++) {
            if (b[i] != '.') {
                digits++;
            }
        }
        return digits;
    }

    private double slowDouble(int from, int to) {
        int len = to - from;
        if (chars.length < len) {
            chars = new char[Math.max(len, chars.length * 2)];
        }
        for (int k = 0; k < len; k++) {
            chars[k] = (char) bytes[from + k];
        }
        return NumberInput.parseDouble(chars, 0, len, true);
    }

    private static boolean digit(byte c) {
        return c >= '0' && c <= '9';
    }

    /** Skips JSON whitespace; false if the bytes end. */
    private boolean skip(int n) {
        byte[] b = bytes;
        int i = at;
        while (i < n && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t')) {
            i++;
        }
        at = i;
        return i < n;
    }

    /** Only whitespace after the object. */
    private boolean end(int n) {
        return !skip(n);
    }

    /**
     * Field names by their bytes, one String each, so that a type's records set their fields with the same name
     * instances (the builder's fast path compares names by identity). Bounded: cleared when full.
     */
    static final class NameTable {
        private static final int SIZE = 1024;
        private final byte[][] keys = new byte[SIZE][];
        private final String[] values = new String[SIZE];
        private int used;
        private byte[] lastKey;

        /** The bytes of the name the last {@link #name} call returned. */
        byte[] lastKey() {
            return lastKey;
        }

        String name(byte[] b, int from, int to) {
            int h = 1;
            for (int i = from; i < to; i++) {
                h = 31 * h + b[i];
            }
            int mask = SIZE - 1;
            for (int slot = (h ^ (h >>> 16)) & mask; ; slot = (slot + 1) & mask) {
                byte[] key = keys[slot];
                if (key == null) {
                    if (used >= SIZE / 2) {
                        Arrays.fill(keys, null);
                        Arrays.fill(values, null);
                        used = 0;
                        return name(b, from, to);
                    }
                    keys[slot] = Arrays.copyOfRange(b, from, to);
                    values[slot] = new String(b, from, to - from, java.nio.charset.StandardCharsets.US_ASCII);
                    used++;
                    lastKey = keys[slot];
                    return values[slot];
                }
                if (Arrays.equals(key, 0, key.length, b, from, to)) {
                    lastKey = key;
                    return values[slot];
                }
            }
        }
    }
}
