package io.sluice;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * A query on one of a cache's field indexes ({@link CacheConfig#index}): which index ({@link #on}), equality on its
 * leading fields ({@link #eq}), a range on the field after them ({@link #gt}, {@link #ge}, {@link #lt}, {@link #le},
 * {@link #between}) and at most how many entries ({@link #limit}). Run it with {@link Cache#query}; it returns the
 * matching entries in index order: by the fields' encoded values (the order {@code docs/binary-format.md}
 * § Ordering gives them: natural for numbers, strings, UUIDs, dates and times), then by the entry's encoded key.
 *
 * <pre>{@code cache.query(IndexQuery.on("secCode").eq("SBER"));
 * cache.query(IndexQuery.on("account", "price").eq("A-17").between(10.0, 20.0).limit(100));}</pre>
 *
 * <p>Values are compared as their encodings, so a value must have the field's type exactly: an {@code int} is not
 * a {@code long} ({@link IndexValueTypeException} says so for the index's first field). A query with neither
 * equality nor a range returns every entry in the index. Immutable: every method returns a copy.
 */
public final class IndexQuery {

    private final List<String> fields;
    /** Values of the leading fields, in order (elements may be null). */
    private final List<Object> equal;
    private final Object lower;
    private final boolean hasLower;
    private final boolean lowerInclusive;
    private final Object upper;
    private final boolean hasUpper;
    private final boolean upperInclusive;
    private final long limit;

    private IndexQuery(List<String> fields, List<Object> equal, Object lower, boolean hasLower, boolean lowerInclusive,
                       Object upper, boolean hasUpper, boolean upperInclusive, long limit) {
        this.fields = fields;
        this.equal = equal;
        this.lower = lower;
        this.hasLower = hasLower;
        this.lowerInclusive = lowerInclusive;
        this.upper = upper;
        this.hasUpper = hasUpper;
        this.upperInclusive = upperInclusive;
        this.limit = limit;
    }

    /**
     * A query on the index of these fields, in the order the index was declared with.
     *
     * @throws NullPointerException if fields or one of them is null
     * @throws IllegalArgumentException if no field is given, or one is blank or repeated
     */
    public static IndexQuery on(String... fields) {
        Objects.requireNonNull(fields, "fields");
        if (fields.length == 0) {
            throw new IllegalArgumentException("an index query names at least one field (IndexQuery.on)");
        }
        List<String> list = new ArrayList<>(fields.length);
        for (String f : fields) {
            Objects.requireNonNull(f, "field");
            if (f.isBlank() || list.contains(f)) {
                throw new IllegalArgumentException("field '" + f + "' is blank or repeated in " + Arrays.toString(fields));
            }
            list.add(f);
        }
        return new IndexQuery(Collections.unmodifiableList(list), List.of(), null, false, false, null, false, false,
                Long.MAX_VALUE);
    }

    /**
     * Equality on the first {@code values.length} fields (a prefix of a composite index; all of them, or the one
     * field of a single-field index), replacing any earlier {@code eq}. A null value matches entries whose field is
     * null or, for a later field of a composite index, missing.
     *
     * @throws NullPointerException if values is null
     * @throws IllegalArgumentException if no value is given, more values than fields, or a range is set and no field
     *     would be left for it
     */
    public IndexQuery eq(Object... values) {
        Objects.requireNonNull(values, "values");
        if (values.length == 0 || values.length > fields.size()) {
            throw new IllegalArgumentException("eq takes 1 to " + fields.size() + " values (one per leading field of "
                    + fields + "); got " + values.length);
        }
        if ((hasLower || hasUpper) && values.length == fields.size()) {
            throw new IllegalArgumentException("eq on every field of " + fields + " leaves no field for the range");
        }
        return new IndexQuery(fields, Collections.unmodifiableList(Arrays.asList(values.clone())), lower, hasLower,
                lowerInclusive, upper, hasUpper, upperInclusive, limit);
    }

    /** Entries whose range field (the one after the {@link #eq} fields) is greater than the value. */
    public IndexQuery gt(Object value) {
        return lower(value, false);
    }

    /** Entries whose range field is greater than or equal to the value. */
    public IndexQuery ge(Object value) {
        return lower(value, true);
    }

    /** Entries whose range field is less than the value. */
    public IndexQuery lt(Object value) {
        return upper(value, false);
    }

    /** Entries whose range field is less than or equal to the value. */
    public IndexQuery le(Object value) {
        return upper(value, true);
    }

    /**
     * Entries whose range field lies in {@code [from, to]}, both inclusive.
     *
     * @throws NullPointerException if from or to is null
     * @throws IllegalArgumentException if the equality covers every field already
     */
    public IndexQuery between(Object from, Object to) {
        return lower(from, true).upper(to, true);
    }

    private IndexQuery lower(Object value, boolean inclusive) {
        Objects.requireNonNull(value, "range bound");
        checkRangeField();
        return new IndexQuery(fields, equal, value, true, inclusive, upper, hasUpper, upperInclusive, limit);
    }

    private IndexQuery upper(Object value, boolean inclusive) {
        Objects.requireNonNull(value, "range bound");
        checkRangeField();
        return new IndexQuery(fields, equal, lower, hasLower, lowerInclusive, value, true, inclusive, limit);
    }

    private void checkRangeField() {
        if (equal.size() == fields.size()) {
            throw new IllegalArgumentException("eq covers every field of " + fields + ": no field is left for a range");
        }
    }

    /**
     * At most this many entries (the first ones in index order).
     *
     * @throws IllegalArgumentException unless limit &gt;= 1
     */
    public IndexQuery limit(long limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit is " + limit + "; it must be at least 1 (IndexQuery.limit)");
        }
        return new IndexQuery(fields, equal, lower, hasLower, lowerInclusive, upper, hasUpper, upperInclusive, limit);
    }

    /** The index's fields, in order. */
    public List<String> fields() {
        return fields;
    }

    /** The values {@link #eq} gave the leading fields (may hold nulls; empty if none). */
    public List<Object> equalValues() {
        return equal;
    }

    /** Whether a lower bound is set ({@link #gt}, {@link #ge}, {@link #between}). */
    public boolean hasLower() {
        return hasLower;
    }

    /** The lower bound of the range field, or null. */
    public Object lower() {
        return lower;
    }

    public boolean lowerInclusive() {
        return lowerInclusive;
    }

    /** Whether an upper bound is set ({@link #lt}, {@link #le}, {@link #between}). */
    public boolean hasUpper() {
        return hasUpper;
    }

    /** The upper bound of the range field, or null. */
    public Object upper() {
        return upper;
    }

    public boolean upperInclusive() {
        return upperInclusive;
    }

    /** The most entries returned ({@link Long#MAX_VALUE}: no limit). */
    public long limit() {
        return limit;
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("IndexQuery.on").append(fields);
        if (!equal.isEmpty()) {
            s.append(".eq").append(equal);
        }
        if (hasLower) {
            s.append(lowerInclusive ? ".ge(" : ".gt(").append(lower).append(')');
        }
        if (hasUpper) {
            s.append(upperInclusive ? ".le(" : ".lt(").append(upper).append(')');
        }
        if (limit != Long.MAX_VALUE) {
            s.append(".limit(").append(limit).append(')');
        }
        return s.toString();
    }
}
