package io.sluice.pagestore.internal.index;

/** A partition was asked about an index id it does not have (never created, or dropped). */
public final class UnknownIndexException extends IllegalArgumentException {

    private final int id;

    public UnknownIndexException(int id) {
        super("the partition has no index " + id + " (never created, or dropped)");
        this.id = id;
    }

    /** The index id asked for. */
    public int id() {
        return id;
    }
}
