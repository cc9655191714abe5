package io.sluice.binary.internal;

import io.sluice.binary.BinaryFormatException;

import static io.sluice.binary.internal.BinaryTags.*;

/**
 * Checks that bytes are exactly one well-formed tagged value, without decoding it: the structure a
 * {@link ValueReader} would find fault with (tags, lengths, counts, string terminators, object
 * headers and footers against the registry, each field's value filling its region exactly), so that
 * entries received from the network are refused before anything is stored. Allocates nothing; an
 * instance is reused by one thread.
 */
public final class ValueValidator {

    private final BinaryContext context;
    private byte[] b;
    private int base;
    private int pos;
    private int depth;

    ValueValidator(BinaryContext context) {
        this.context = context;
    }

    /** @throws BinaryFormatException naming what is wrong and its offset (relative to {@code offset}) */
    public void checkWhole(byte[] bytes, int offset, int length) {
        this.b = bytes;
        this.base = offset;
        this.pos = offset;
        this.depth = 0;
        try {
            if (length < 1) {
                throw new BinaryFormatException("an encoded value needs at least its tag byte but has " + length
                        + " bytes at offset 0");
            }
            int limit = offset + length;
            value(limit);
            if (pos != limit) {
                throw new BinaryFormatException("value ends at offset " + (pos - base) + " but its length says "
                        + length);
            }
        } finally {
            this.b = null;
        }
    }

    private BinaryFormatException error(String message, int at) {
        return new BinaryFormatException(message + " at offset " + (at - base));
    }

    private void skip(int n, int limit) {
        if (n < 0 || limit - pos < n) {
            throw error(n + " bytes needed but " + (limit - pos) + " remain", pos);
        }
        pos += n;
    }

    private int count(int elementSize, int limit) {
        int at = pos;
        skip(4, limit);
        int n = GrowableBuffer.getInt(b, at);
        if (n < 0 || (long) n * elementSize > limit - pos) {
            throw error("count " + n + " of " + elementSize + "-byte elements exceeds the " + (limit - pos)
                    + " bytes remaining", at);
        }
        return n;
    }

    private void value(int limit) {
        int at = pos;
        skip(1, limit);
        byte tag = b[at];
        switch (tag) {
            case NULL -> { }
            case BOOLEAN -> {
                skip(1, limit);
                if ((b[pos - 1] & 0xFE) != 0) {
                    throw error("boolean byte " + b[pos - 1] + " is neither 0 nor 1", pos - 1);
                }
            }
            case BYTE -> skip(1, limit);
            case SHORT, CHAR -> skip(2, limit);
            case INT, FLOAT -> skip(4, limit);
            case LONG, DOUBLE -> skip(8, limit);
            case LOCAL_DATE -> {
                skip(8, limit);
                epochDay(at);
            }
            case INSTANT -> {
                skip(12, limit);
                long seconds = GrowableBuffer.getLong(b, at + 1) ^ Long.MIN_VALUE;
                int nanos = GrowableBuffer.getInt(b, at + 9);
                if (seconds < MIN_SECOND || seconds > MAX_SECOND || nanos < 0 || nanos > 999_999_999) {
                    throw error("instant " + seconds + "s " + nanos + "ns out of range", at);
                }
            }
            case UUID_TAG -> skip(16, limit);
            case LOCAL_DATE_TIME -> {
                skip(16, limit);
                long day = epochDay(at);
                long nanos = GrowableBuffer.getLong(b, at + 9);
                if (nanos < 0 || nanos >= NANOS_PER_DAY) {
                    throw error("date-time " + day + "d " + nanos + "ns out of range", at);
                }
            }
            case STRING -> string(at, limit);
            case BYTES, BOOLEAN_ARRAY -> skip(count(1, limit), limit);
            case BIG_INTEGER -> bigInteger(at, limit);
            case BIG_DECIMAL -> {
                skip(4, limit);
                bigInteger(at, limit);
            }
            case SHORT_ARRAY, CHAR_ARRAY -> skip(count(2, limit) * 2, limit);
            case INT_ARRAY, FLOAT_ARRAY -> skip(count(4, limit) * 4, limit);
            case LONG_ARRAY, DOUBLE_ARRAY -> skip(count(8, limit) * 8, limit);
            case OBJECT_ARRAY, LIST, SET -> {
                int n = count(1, limit);
                enter(at);
                for (int i = 0; i < n; i++) {
                    value(limit);
                }
                depth--;
            }
            case MAP -> {
                int n = count(2, limit);
                enter(at);
                for (int i = 0; i < 2 * n; i++) {
                    value(limit);
                }
                depth--;
            }
            case OBJECT -> object(at, limit);
            default -> throw error(String.format("unknown tag 0x%02x", tag & 0xff), at);
        }
    }

    private static final long MIN_SECOND = java.time.Instant.MIN.getEpochSecond();
    private static final long MAX_SECOND = java.time.Instant.MAX.getEpochSecond();
    private static final long MIN_DAY = java.time.LocalDate.MIN.toEpochDay();
    private static final long MAX_DAY = java.time.LocalDate.MAX.toEpochDay();
    private static final long NANOS_PER_DAY = 86_400_000_000_000L;

    /** The epoch day right after the tag at {@code at}, checked against LocalDate's range. */
    private long epochDay(int at) {
        long day = GrowableBuffer.getLong(b, at + 1) ^ Long.MIN_VALUE;
        if (day < MIN_DAY || day > MAX_DAY) {
            throw error(b[at] == LOCAL_DATE ? "epoch day " + day + " out of range"
                    : "date-time " + day + "d " + GrowableBuffer.getLong(b, at + 9) + "ns out of range", at);
        }
        return day;
    }

    private void bigInteger(int at, int limit) {
        int n = count(1, limit);
        if (n == 0) {
            throw error("big integer with no bytes", at);
        }
        skip(n, limit);
    }

    private void string(int at, int limit) {
        for (int i = pos; i < limit; i++) {
            if (b[i] == 0) {
                if (i + 1 < limit && b[i + 1] == (byte) 0xFF) {
                    i++; // an escaped U+0000
                    continue;
                }
                pos = i + 1;
                return;
            }
        }
        throw error("string has no terminator", at);
    }

    /**
     * An object in one pass: header, type and schema known, the footer's offsets increasing from the
     * header to the footer, and each field's region exactly one value — fixed-width values checked by
     * their width, strings by their terminator, the rest by the general walk.
     */
    private void object(int at, int limit) {
        int rel = at - base;
        if (limit - at < ObjectLayout.MIN_HEADER) {
            throw new BinaryFormatException("object header needs at least " + ObjectLayout.MIN_HEADER
                    + " bytes but " + (limit - at) + " remain at offset " + rel);
        }
        int s = ObjectLayout.offsetSize(b[at + ObjectLayout.VERSION_FLAGS_OFFSET], rel);
        int header = ObjectLayout.FIXED_HEADER + s;
        if (limit - at < header) {
            throw new BinaryFormatException("object header needs " + header + " bytes but " + (limit - at)
                    + " remain at offset " + rel);
        }
        int length = ObjectLayout.readSized(b, at + ObjectLayout.LENGTH_OFFSET, s);
        if (length < header || length > limit - at) {
            throw new BinaryFormatException("object length " + Integer.toUnsignedString(length) + " is outside ["
                    + header + ", " + (limit - at) + "] (the bytes remaining) at offset " + rel);
        }
        Schema schema = BinaryObjectImpl.schemaOf(context, b, at, rel);
        int n = schema.size();
        int footer = at + length - n * s;
        if (footer < at + header) {
            throw new BinaryFormatException("object of " + length + " bytes is too short for its header and the " + n
                    + " footer offsets of schema " + schema.id + ", at offset " + rel);
        }
        if (n == 0) {
            if (footer != at + header) {
                throw new BinaryFormatException("object with no fields has " + (footer - at - header)
                        + " bytes of values at offset " + rel);
            }
            pos = at + length;
            return;
        }
        enter(at);
        int from = at + ObjectLayout.readSized(b, footer, s);
        if (from != at + header) {
            throw offsetError(schema, 0, from - at, footer - at, footer);
        }
        for (int i = 0; i < n; i++) {
            int to = footer;
            if (i + 1 < n) {
                int next = ObjectLayout.readSized(b, footer + (i + 1) * s, s);
                to = at + next;
                if (next <= from - at || next >= footer - at) {
                    throw offsetError(schema, i + 1, next, footer - at, footer + (i + 1) * s);
                }
            }
            field(schema, i, from, to);
            from = to;
        }
        depth--;
        pos = at + length;
    }

    private BinaryFormatException offsetError(Schema schema, int field, int offset, int footer, int entry) {
        return new BinaryFormatException("field '" + schema.fields[field].name + "' offset "
                + Integer.toUnsignedString(offset) + " is not after the previous value and before the footer ("
                + footer + "), at offset " + (entry - base));
    }

    /** Bytes of a fixed-width value by its tag (0: variable, or checked by the general walk). */
    private static final int[] FIXED_WIDTH = new int[256];

    static {
        FIXED_WIDTH[NULL & 0xFF] = 1;
        FIXED_WIDTH[BYTE & 0xFF] = 2;
        FIXED_WIDTH[SHORT & 0xFF] = 3;
        FIXED_WIDTH[CHAR & 0xFF] = 3;
        FIXED_WIDTH[INT & 0xFF] = 5;
        FIXED_WIDTH[FLOAT & 0xFF] = 5;
        FIXED_WIDTH[LONG & 0xFF] = 9;
        FIXED_WIDTH[DOUBLE & 0xFF] = 9;
        FIXED_WIDTH[UUID_TAG & 0xFF] = 17;
    }

    /** One field's region: exactly one value. */
    private void field(Schema schema, int index, int from, int to) {
        byte tag = b[from];
        int width = FIXED_WIDTH[tag & 0xFF];
        if (width > 0) {
            if (to - from == width) {
                return;
            }
        } else if (tag == STRING && stringFills(from, to)) {
            return;
        }
        pos = from;
        value(to);
        if (pos != to) {
            throw error("field '" + schema.fields[index].name + "' ends at offset " + (pos - base)
                    + " but its region ends at " + (to - base), from);
        }
    }

    /** Whether [from, to) is exactly one string: its first unescaped 00 is its last byte. */
    private boolean stringFills(int from, int to) {
        int last = to - 1;
        if (last <= from || b[last] != 0) {
            return false;
        }
        for (int i = from + 1; i < last; i++) {
            if (b[i] == 0) {
                if (b[i + 1] != (byte) 0xFF || i + 1 == last) {
                    return false;
                }
                i++;
            }
        }
        return true;
    }

    private void enter(int at) {
        if (++depth > ValueReader.MAX_DEPTH) {
            throw error("values nested deeper than " + ValueReader.MAX_DEPTH, at);
        }
    }
}
