package io.sluice.binary.internal;

import io.sluice.binary.BinaryObject;

/**
 * Where a field's value lies inside a binary object's bytes, read from the object's footer without
 * decoding anything: what the node needs to update a field in place (the stored value is the
 * object's bytes, so an offset in the object is an offset in the stored value).
 */
public final class FieldLocator {

    private FieldLocator() {
    }

    /**
     * The named field's value, as {@code start << 32 | end}: the bytes {@code [start, end)} counted
     * from the object's first byte (its tag), tag of the value included.
     *
     * @return the packed range, or -1 if the object has no such field (or is not one of Sluice's)
     */
    public static long locate(BinaryObject object, String field) {
        if (!(object instanceof BinaryObjectImpl o)) {
            return -1;
        }
        int i = o.indexOf(field);
        if (i < 0) {
            return -1;
        }
        return (long) (o.valueStart(i) - o.start) << 32 | (o.valueEnd(i) - o.start);
    }

    /** The start of a range {@link #locate} returned. */
    public static int start(long range) {
        return (int) (range >>> 32);
    }

    /** The end of a range {@link #locate} returned. */
    public static int end(long range) {
        return (int) range;
    }
}
