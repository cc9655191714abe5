package io.sluice.query.internal;

import io.sluice.IndexQuery;
import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.binary.internal.ValueCodec;

import java.util.Arrays;

/**
 * A query's values as the bounds an index tree takes: each bound is the concatenation of the encoded values of the
 * fields it constrains, and compares with the first {@code bound.length} bytes of an index key (a key starting with
 * the bound compares equal). So {@code eq(a)} is {@code [enc(a), enc(a)]} inclusive, and {@code eq(a).gt(b)} on a
 * composite index is {@code (enc(a) enc(b), enc(a)]}: after every key with {@code b} as second field, up to the last
 * key with {@code a} as first. Encodings are self-delimiting (a string ends with its terminator), so a bound never
 * matches a longer value it is a prefix of. A null bound is open.
 *
 * @param lower the lower bound, or null
 * @param upper the upper bound, or null
 */
public record IndexBounds(byte[] lower, boolean lowerInclusive, byte[] upper, boolean upperInclusive) {

    /** Every entry of the index. */
    public static final IndexBounds ALL = new IndexBounds(null, true, null, true);

    /** The bounds of a query, its values encoded with the codec (the binary format's one encoding). */
    public static IndexBounds of(IndexQuery query, ValueCodec codec) {
        GrowableBuffer buf = new GrowableBuffer(64);
        for (Object value : query.equalValues()) {
            codec.encode(value, buf);
        }
        byte[] prefix = Arrays.copyOf(buf.array(), buf.position());
        byte[] open = prefix.length == 0 ? null : prefix;
        byte[] lower = open;
        boolean lowerInclusive = true;
        if (query.hasLower()) {
            buf.position(prefix.length);
            codec.encode(query.lower(), buf);
            lower = Arrays.copyOf(buf.array(), buf.position());
            lowerInclusive = query.lowerInclusive();
        }
        byte[] upper = open;
        boolean upperInclusive = true;
        if (query.hasUpper()) {
            buf.position(prefix.length);
            codec.encode(query.upper(), buf);
            upper = Arrays.copyOf(buf.array(), buf.position());
            upperInclusive = query.upperInclusive();
        }
        return new IndexBounds(lower, lowerInclusive, upper, upperInclusive);
    }

    /** Whether an index key lies within the bounds (the tree's rule, for checks and tests). */
    public boolean contains(byte[] indexKey) {
        if (lower != null) {
            int c = comparePrefix(indexKey, lower);
            if (c < 0 || (c == 0 && !lowerInclusive)) {
                return false;
            }
        }
        if (upper != null) {
            int c = comparePrefix(indexKey, upper);
            return c < 0 || (c == 0 && upperInclusive);
        }
        return true;
    }

    /** The key's first {@code bound.length} bytes against the bound, unsigned (a shorter key compares as itself). */
    public static int comparePrefix(byte[] key, byte[] bound) {
        int n = Math.min(key.length, bound.length);
        int c = Arrays.compareUnsigned(key, 0, n, bound, 0, n);
        return c != 0 ? c : key.length >= bound.length ? 0 : -1;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof IndexBounds b && Arrays.equals(lower, b.lower) && Arrays.equals(upper, b.upper)
                && lowerInclusive == b.lowerInclusive && upperInclusive == b.upperInclusive;
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(lower) + Arrays.hashCode(upper) + (lowerInclusive ? 2 : 0) + (upperInclusive ? 1 : 0);
    }

    @Override
    public String toString() {
        return (lowerInclusive ? "[" : "(") + hex(lower) + ", " + hex(upper) + (upperInclusive ? "]" : ")");
    }

    private static String hex(byte[] b) {
        if (b == null) {
            return "open";
        }
        StringBuilder s = new StringBuilder();
        for (byte x : b) {
            s.append(String.format("%02x", x & 0xFF));
        }
        return s.toString();
    }
}
