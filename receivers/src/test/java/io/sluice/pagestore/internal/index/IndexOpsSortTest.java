package io.sluice.pagestore.internal.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.pagestore.internal.tree.TreePageIO;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link IndexOps#sorted()} against a plain stable sort of the keys (unsigned bytes, shorter first on a common
 * prefix): keys sharing long prefixes, keys that are prefixes of others or differ only in a zero byte past the
 * end, duplicates (kept in the order they were made), and keys already in order.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class IndexOpsSortTest {

    @Test
    void sortsLikeAStableSortOfTheKeys() {
        long seed = System.nanoTime();
        System.out.println("IndexOpsSortTest seed " + seed);
        SplittableRandom random = new SplittableRandom(seed);
        for (int round = 0; round < 150; round++) {
            int n = 1 + random.nextInt(round % 10 == 0 ? 3000 : 600);
            List<byte[]> keys = new ArrayList<>();
            byte[] shared = bytes(random, random.nextInt(40));
            for (int i = 0; i < n; i++) {
                keys.add(key(random, shared, keys));
            }
            if (round % 7 == 0) {
                keys.sort(Arrays::compareUnsigned);
            }
            assertSorted(keys, seed);
        }
    }

    @Test
    void everyKeyEqualKeepsTheOrderTheyWereMade() {
        List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            keys.add(new byte[] {9, 'S', 'B', 'E', 'R', 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13});
        }
        assertSorted(keys, 0);
    }

    @Test
    void sortsBatchesOfALoadsFieldValues() {
        long seed = System.nanoTime();
        System.out.println("IndexOpsSortTest seed " + seed);
        SplittableRandom random = new SplittableRandom(seed);
        for (int n : new int[] {IndexOps.RADIX_FROM - 1, IndexOps.RADIX_FROM, IndexOps.RADIX_FROM + 1, 512, 513,
                2000}) {
            for (int values : new int[] {1, 3, 40, 1000}) { // field values as the load's: a string tag, "SEC" + i
                List<byte[]> keys = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    byte[] code = ("SEC" + random.nextInt(values)).getBytes(java.nio.charset.StandardCharsets.UTF_8);
                    byte[] fieldPart = concat(new byte[] {9, (byte) code.length}, code);
                    byte[] key = new byte[9]; // a long key: a tag and 8 bytes, some alike in their low bytes
                    key[0] = 4;
                    for (int b = 1; b < 9; b++) {
                        key[b] = (byte) (b < 6 ? 0 : random.nextInt(values == 1 ? 2 : 256));
                    }
                    keys.add(IndexKeys.indexKey(fieldPart, key));
                }
                assertSorted(keys, seed);
            }
        }
    }

    @Test
    void hintedBatchesSortAlikeWhetherTheHintHoldsOrNot() {
        long seed = System.nanoTime();
        System.out.println("IndexOpsSortTest seed " + seed);
        SplittableRandom random = new SplittableRandom(seed);
        for (int n : new int[] {IndexOps.RADIX_FROM - 1, IndexOps.RADIX_FROM, 474, 2000}) {
            for (int values : new int[] {2, 40, 1000}) {
                for (int shape = 0; shape < 4; shape++) { // ascending keys, one key out of place, random keys, field parts past the 8 bytes sorted
                    List<byte[]> keys = new ArrayList<>();
                    List<Integer> hints = new ArrayList<>();
                    long next = random.nextInt(1 << 20);
                    for (int i = 0; i < n; i++) {
                        String v = (shape == 3 ? "account-" : "SEC") + random.nextInt(values);
                        byte[] code = v.getBytes(java.nio.charset.StandardCharsets.UTF_8);
                        byte[] fieldPart = concat(new byte[] {9, (byte) code.length}, code);
                        next += 1 + random.nextInt(shape == 0 ? 3000 : 5);
                        long k = shape == 2 ? random.nextLong() : shape == 1 && i == n / 2 ? next - 5_000_000 : next;
                        byte[] key = java.nio.ByteBuffer.allocate(9).put((byte) 4).putLong(k).array();
                        keys.add(IndexKeys.indexKey(fieldPart, key));
                        hints.add(fieldPart.length);
                    }
                    IndexOps ops = assertSorted(keys, hints, seed);
                    if (n >= IndexOps.RADIX_FROM && shape == 0) {
                        assertThat(ops.hintsHeld()).as("ascending keys: sorted by their field parts, n %d values %d shape %d", n, values, shape).isEqualTo(1);
                    } else if (shape == 2 && n >= 10 * values) { // many keys per field value: some out of order
                        assertThat(ops.hintsHeld()).as("random keys: the hint fails").isZero();
                    }
                }
            }
        }
    }

    /** A key: the shared bytes, then a mix of short tails, long tails, zero bytes, and copies of earlier keys. */
    private static byte[] key(SplittableRandom random, byte[] shared, List<byte[]> earlier) {
        switch (random.nextInt(6)) {
            case 0:
                if (!earlier.isEmpty()) {
                    return earlier.get(random.nextInt(earlier.size())).clone();
                }
                return shared.clone();
            case 1: { // an earlier key cut short, or with a zero byte added
                if (earlier.isEmpty()) {
                    return shared.clone();
                }
                byte[] e = earlier.get(random.nextInt(earlier.size()));
                return random.nextBoolean() ? Arrays.copyOf(e, random.nextInt(e.length + 1)) : Arrays.copyOf(e,
                        e.length + 1);
            }
            case 2: { // few distinct bytes: long ties past the shared prefix
                byte[] tail = new byte[random.nextInt(30)];
                for (int i = 0; i < tail.length; i++) {
                    tail[i] = (byte) (random.nextInt(2) * 0x80);
                }
                return concat(shared, tail);
            }
            default:
                return concat(shared, bytes(random, random.nextInt(24)));
        }
    }

    private static void assertSorted(List<byte[]> keys, long seed) {
        assertSorted(keys, null, seed);
    }

    /** {@code hints}: per key, the sort's hint ({@link IndexOps#commit(byte, long, int)}), or none. */
    private static IndexOps assertSorted(List<byte[]> keys, List<Integer> hints, long seed) {
        IndexOps ops = new IndexOps();
        for (int i = 0; i < keys.size(); i++) {
            byte[] k = keys.get(i);
            int at = ops.open(k.length);
            System.arraycopy(k, 0, ops.bytes(), at, k.length);
            if (hints == null) {
                ops.commit(IndexOps.PUT, i);
            } else {
                ops.commit(IndexOps.PUT, i, hints.get(i));
            }
        }
        Integer[] expected = new Integer[keys.size()];
        for (int i = 0; i < expected.length; i++) {
            expected[i] = i;
        }
        Arrays.sort(expected, Comparator.comparing(keys::get, Arrays::compareUnsigned)); // stable
        int[] order = ops.sorted();
        int[] actual = Arrays.copyOf(order, keys.size());
        int[] want = Arrays.stream(expected).mapToInt(Integer::intValue).toArray();
        if (!Arrays.equals(actual, want)) {
            assertThat(actual).as("seed %d, %d keys", seed, keys.size()).isEqualTo(want);
        }
        for (int i = 0; i < actual.length; i++) { // the prefixes the walk reads are each key's own
            byte[] k = keys.get(i);
            if (ops.prefixHigh(i) != TreePageIO.prefixHigh(k, 0, k.length)
                    || ops.prefixLow(i) != TreePageIO.prefixLow(k, 0, k.length)) {
                throw new AssertionError("seed " + seed + ": prefix of key " + i);
            }
        }
        return ops;
    }

    private static byte[] bytes(SplittableRandom random, int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) random.nextInt(256);
        }
        return b;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] r = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }
}
