package io.sluice.affinity.internal;

/**
 * Maps an encoded key to its partition. Client and node call this same code, so a key's
 * partition never depends on which side computed it. The hash is {@link Murmur3} of the key's encoded
 * bytes, so equal keys (equal bytes) always land in the same partition.
 */
public final class Partitioner {

    private Partitioner() {
    }

    /** The partition of the key bytes {@code [offset, offset + length)} among {@code partitions}. */
    public static int partition(byte[] key, int offset, int length, int partitions) {
        return (Murmur3.hash(key, offset, length) & 0x7fffffff) % partitions;
    }
}
