package io.sluice.store;

import io.sluice.protocol.EntryBatch;
import io.sluice.store.page.RowStore;
import io.sluice.store.tree.BPlusTree;

/** Applies an {@link EntryBatch} to a partition (placeholder: the batch path comes next). */
final class BatchWriter {

    private final RowStore rows;
    private final BPlusTree tree;

    BatchWriter(RowStore rows, BPlusTree tree) {
        this.rows = rows;
        this.tree = tree;
    }

    BatchResult apply(EntryBatch batch, BatchMode mode) {
        throw new UnsupportedOperationException("not yet");
    }

    /** Marks entries that a later entry of the same key overrides (open addressing over entry indexes). */
    static boolean[] superseded(EntryBatch batch) {
        int n = batch.size();
        boolean[] result = new boolean[n];
        int capacity = Integer.highestOneBit(Math.max(4, n * 2) - 1) << 1;
        int[] table = new int[capacity];
        int mask = capacity - 1;
        byte[] data = batch.data();
        for (int i = n - 1; i >= 0; i--) {
            int ko = batch.keyOffset(i);
            int kl = batch.keyLength(i);
            int slot = hash(data, ko, kl) & mask;
            while (true) {
                int j = table[slot] - 1;
                if (j < 0) {
                    table[slot] = i + 1;
                    break;
                }
                if (java.util.Arrays.equals(data, ko, ko + kl, data, batch.keyOffset(j), batch.keyOffset(j) + batch.keyLength(j))) {
                    result[i] = true;
                    break;
                }
                slot = (slot + 1) & mask;
            }
        }
        return result;
    }

    private static int hash(byte[] data, int offset, int length) {
        int h = 1;
        for (int i = 0; i < length; i++) {
            h = 31 * h + data[offset + i];
        }
        int x = h * 0x9E3779B9;
        return x ^ (x >>> 16);
    }
}
