package io.sluice;

/**
 * What the node tells a {@link CacheStore} when it opens it: the cache, and the node's binary
 * encoding, so that a store can keep a value as the bytes the node stores (no re-encoding) and turn
 * them back into the value on a load.
 */
public interface CacheStoreContext {

    /** The name of the cache the store serves. */
    String cacheName();

    /**
     * The stored form of a key or value: for a {@link io.sluice.binary.BinaryObject} its own bytes,
     * for other types their tagged encoding ({@code docs/binary-format.md}).
     */
    byte[] toBytes(Object value);

    /**
     * The value of bytes made by {@link #toBytes}; binary objects stay binary.
     *
     * @throws io.sluice.binary.BinaryFormatException if the bytes are not one well-formed value
     */
    Object fromBytes(byte[] bytes);

    /**
     * The node's binary objects: a store keeping values in another form than their bytes uses it to
     * turn them into JSON ({@link io.sluice.binary.Binary#toJson}) and back
     * ({@link io.sluice.binary.Binary#fromJson(String, String)}), with the node's registered types.
     */
    io.sluice.binary.Binary binary();
}
