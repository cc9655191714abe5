package io.sluice.samples.bench;

import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.protocol.internal.EntryBatch;
import java.util.Random;
import java.util.SplittableRandom;

/** Keys and batches for the store benchmarks: 9-byte long keys (a tag, then the long, sign bit flipped). */
final class StoreKeys {

    static final int KEY_LENGTH = 9;

    private StoreKeys() {
    }

    static void key(byte[] into, long k) {
        long v = k ^ Long.MIN_VALUE; // unsigned byte order = numeric order
        into[0] = 4;
        for (int i = 0; i < 8; i++) {
            into[1 + i] = (byte) (v >>> (56 - 8 * i));
        }
    }

    /** Keys 0..n-1 ascending, or the same keys shuffled. */
    static long[] keys(int n, boolean ascending, long seed) {
        long[] keys = new long[n];
        for (int i = 0; i < n; i++) {
            keys[i] = i;
        }
        if (!ascending) {
            Random r = new Random(seed);
            for (int i = n - 1; i > 0; i--) {
                int j = r.nextInt(i + 1);
                long t = keys[i];
                keys[i] = keys[j];
                keys[j] = t;
            }
        }
        return keys;
    }

    /** Batches of batchSize entries, rows (key + value) of minRow..maxRow bytes. */
    static EntryBatch[] batches(long[] keys, int batchSize, int minRow, int maxRow, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        int count = (keys.length + batchSize - 1) / batchSize;
        EntryBatch[] batches = new EntryBatch[count];
        byte[] key = new byte[KEY_LENGTH];
        byte[] value = new byte[maxRow];
        random.nextBytes(value);
        GrowableBuffer out = new GrowableBuffer(batchSize * (maxRow + 16));
        for (int b = 0; b < count; b++) {
            out.reset();
            int from = b * batchSize;
            int to = Math.min(keys.length, from + batchSize);
            for (int i = from; i < to; i++) {
                key(key, keys[i]);
                int valueLength = minRow - KEY_LENGTH + random.nextInt(maxRow - minRow + 1);
                EntryBatch.appendHeader(out, KEY_LENGTH, valueLength);
                out.putBytes(key);
                out.putBytes(value, 0, valueLength);
            }
            batches[b] = new EntryBatch(out.toByteArray(), out.position(), to - from);
        }
        return batches;
    }
}
