package io.sluice.pagestore.internal.tree;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class ItemSearchTest {

    /** Keys of at most 12 bytes: compared in the item alone, so no row store is needed. */
    @Test
    void gallopFindsWhatTheBinarySearchFindsForEveryKeyAndEveryStartingPoint() {
        SplittableRandom random = new SplittableRandom(29);
        for (int item : new int[] {TreePageIO.ITEM, TreePageIO.WIDE_ITEM}) {
            for (int round = 0; round < 50; round++) {
                int n = random.nextInt(0, 60);
                TreeSet<Long> values = new TreeSet<>();
                while (values.size() < n) {
                    values.add(random.nextLong(0, 400) * 2); // even: odd probes fall between items
                }
                ByteBuffer b = ByteBuffer.allocate(TreePageIO.ITEMS + 64 * item);
                int i = 0;
                for (long v : values) {
                    byte[] key = key(v, (int) (v % 5)); // lengths 8-12: ties of the padded prefix decided by length
                    TreePageIO.writeItem(b, TreePageIO.leafItem(0, i++, item), item, v, key, 0, key.length);
                }
                for (int from = 0; from <= n; from++) {
                    int base = TreePageIO.leafItem(0, from, item);
                    for (long probe = -1; probe <= 801; probe++) {
                        byte[] key = key(probe, (int) (Math.abs(probe) % 5));
                        long k0 = TreePageIO.prefixHigh(key, 0, key.length);
                        int k1 = TreePageIO.prefixLow(key, 0, key.length);
                        int expected = ItemSearch.search(null, key, 0, key.length, k0, k1, b, base, n - from, item);
                        int galloped = ItemSearch.gallop(null, key, 0, key.length, k0, k1, b, base, n - from, item);
                        assertThat(galloped).as("key %d from item %d of %d (%d-byte items)", probe, from, n, item)
                                .isEqualTo(expected);
                    }
                }
            }
        }
    }

    /**
     * The cold-leaf search finds what the binary search finds: items spread evenly (its guess lands a few items off,
     * within its item-by-item steps) and bunched at either end (the guess far off: the gallop takes over).
     */
    @Test
    void locateFindsWhatTheBinarySearchFindsWhereverItsGuessLands() {
        SplittableRandom random = new SplittableRandom(31);
        for (int item : new int[] {TreePageIO.ITEM, TreePageIO.WIDE_ITEM}) {
            for (int round = 0; round < 120; round++) {
                int n = random.nextInt(0, 100);
                int shape = round % 3; // 0: even; 1: most items near the low end; 2: near the high end
                TreeSet<Long> values = new TreeSet<>();
                while (values.size() < n) {
                    long v = random.nextLong(0, 1000);
                    if (shape == 1 && random.nextInt(10) > 0) {
                        v = random.nextLong(0, 60);
                    } else if (shape == 2 && random.nextInt(10) > 0) {
                        v = random.nextLong(940, 1000);
                    }
                    values.add(v * 2); // even: odd probes fall between items
                }
                ByteBuffer b = ByteBuffer.allocate(TreePageIO.ITEMS + 100 * item);
                int i = 0;
                for (long v : values) {
                    byte[] key = key(v, (int) (v % 5));
                    TreePageIO.writeItem(b, TreePageIO.leafItem(0, i++, item), item, v, key, 0, key.length);
                }
                int base = TreePageIO.leafItem(0, 0, item);
                for (long probe = -1; probe <= 2001; probe++) {
                    byte[] key = key(probe, (int) (Math.abs(probe) % 5));
                    long k0 = TreePageIO.prefixHigh(key, 0, key.length);
                    int k1 = TreePageIO.prefixLow(key, 0, key.length);
                    int expected = ItemSearch.search(null, key, 0, key.length, k0, k1, b, base, n, item);
                    int located = ItemSearch.locate(null, key, 0, key.length, k0, k1, b, base, n, item);
                    assertThat(located).as("key %d among %d items, shape %d (%d-byte items)", probe, n, shape, item)
                            .isEqualTo(expected);
                }
            }
        }
    }

    private static byte[] key(long v, int extra) {
        byte[] key = new byte[8 + extra];
        long u = v ^ Long.MIN_VALUE;
        for (int i = 0; i < 8; i++) {
            key[i] = (byte) (u >>> (56 - 8 * i));
        }
        return key;
    }
}
