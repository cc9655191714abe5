package io.sluice.affinity.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * MurmurHash3 x86_32, seed 0: the one hash of the project — a key's partition ({@link Partitioner}),
 * type, field and schema ids, and a binary object's {@code hashCode()}.
 */
public final class Murmur3 {

    private Murmur3() {
    }

    private static final VarHandle INT_LE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    /** The hash of the bytes {@code [offset, offset + length)}, each 4-byte block read in one little-endian load. */
    @SuppressWarnings("fallthrough") // the tail switch folds in 3, 2, then 1 trailing bytes, as MurmurHash3 does
    public static int hash(byte[] data, int offset, int length) {
        int h = 0;
        int end = offset + (length & ~3);
        for (int i = offset; i < end; i += 4) {
            int k = (int) INT_LE.get(data, i);
            k = Integer.rotateLeft(k * 0xcc9e2d51, 15) * 0x1b873593;
            h ^= k;
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
                h ^= Integer.rotateLeft(k * 0xcc9e2d51, 15) * 0x1b873593;
                break;
            default:
                break;
        }
        return fmix(h ^ length);
    }

    /** MurmurHash3's finalizer: spreads every input bit over the whole word (rendezvous affinity scores with it). */
    static int fmix(int h) {
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        return h;
    }

    /** The id of a type or field name: the hash of its UTF-8 bytes. */
    public static int ofName(String name) {
        byte[] utf8 = name.getBytes(StandardCharsets.UTF_8);
        return hash(utf8, 0, utf8.length);
    }

    /** The hash of the ints as the bytes they are written as (4 bytes each, big-endian). */
    public static int ofInts(int[] values, int count) {
        int h = 0;
        for (int i = 0; i < count; i++) {
            // a block is read little-endian, so a big-endian int reads byte-reversed
            int k = Integer.reverseBytes(values[i]);
            k = Integer.rotateLeft(k * 0xcc9e2d51, 15) * 0x1b873593;
            h ^= k;
            h = Integer.rotateLeft(h, 13) * 5 + 0xe6546b64;
        }
        return fmix(h ^ (count * 4));
    }
}
