package io.sluice.affinity;

/**
 * Maps an encoded key to its partition. Client and node call this same code, so a key's
 * partition never depends on which side computed it. The hash is 32-bit MurmurHash3 of the key's
 * encoded bytes (seed 0), so equal keys (equal bytes) always land in the same partition.
 */
public final class Partitioner {

    private static final int C1 = 0xcc9e2d51;
    private static final int C2 = 0x1b873593;

    private Partitioner() {
    }

    /** The partition of the key bytes {@code [offset, offset + length)} among {@code partitions}. */
    public static int partition(byte[] key, int offset, int length, int partitions) {
        return (hash(key, offset, length) & 0x7fffffff) % partitions;
    }

    /** MurmurHash3 x86 32-bit of the bytes, seed 0, little-endian blocks. */
    @SuppressWarnings("fallthrough") // the tail switch folds in 3, 2, then 1 trailing bytes, as MurmurHash3 does
    public static int hash(byte[] data, int offset, int length) {
        int h = 0;
        int end = offset + (length & ~3);
        for (int i = offset; i < end; i += 4) {
            int k = (data[i] & 0xff) | (data[i + 1] & 0xff) << 8 | (data[i + 2] & 0xff) << 16 | data[i + 3] << 24;
            h ^= mixK(k);
            h = Integer.rotateLeft(h, 13) * 5 + 0xe6546b64;
        }
        int k = 0;
        switch (length & 3) {
            case 3:
                k ^= (data[end + 2] & 0xff) << 16;
                // fall through
            case 2:
                k ^= (data[end + 1] & 0xff) << 8;
                // fall through
            case 1:
                k ^= data[end] & 0xff;
                h ^= mixK(k);
                break;
            default:
                break;
        }
        return fmix(h ^ length);
    }

    private static int mixK(int k) {
        return Integer.rotateLeft(k * C1, 15) * C2;
    }

    /** MurmurHash3's finalizer: spreads every input bit over the whole word. */
    static int fmix(int h) {
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        return h;
    }
}
