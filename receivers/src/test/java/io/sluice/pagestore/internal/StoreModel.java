package io.sluice.pagestore.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/** Random keys and values for model tests, and a TreeMap reference with the store's key order. */
final class StoreModel {

    final TreeMap<byte[], byte[]> map = new TreeMap<>(Arrays::compareUnsigned);
    final Random random;
    final long seed;
    final int maxValue;

    StoreModel(long seed, int maxValue) {
        this.seed = seed;
        this.random = new Random(seed);
        this.maxValue = maxValue;
    }

    /** Keys of three shapes: short numbers (inline in tree items), long keys sharing a long prefix, random bytes. */
    byte[] key(int range) {
        int n = random.nextInt(range);
        switch (random.nextInt(3)) {
            case 0:
                return new byte[] {1, (byte) (n >>> 24), (byte) (n >>> 16), (byte) (n >>> 8), (byte) n};
            case 1:
                return ("customer-order-" + String.format("%08d", n)).getBytes(StandardCharsets.US_ASCII);
            default:
                Random r = new Random(n);
                byte[] k = new byte[1 + r.nextInt(40)];
                r.nextBytes(k);
                k[0] = (byte) 0xF0; // share a first byte so prefixes tie
                return k;
        }
    }

    byte[] value() {
        int size;
        int pick = random.nextInt(100);
        if (pick < 70) {
            size = random.nextInt(200);
        } else if (pick < 95) {
            size = random.nextInt(2000);
        } else {
            size = random.nextInt(maxValue + 1);
        }
        byte[] v = new byte[size];
        random.nextBytes(v);
        return v;
    }

    String context() {
        return "seed " + seed;
    }

    void assertSame(PartitionStore store) {
        assertThat(store.size()).as(context()).isEqualTo(map.size());
        StoreCursor cursor = store.cursor();
        int i = 0;
        for (Map.Entry<byte[], byte[]> e : map.entrySet()) {
            assertThat(cursor.next()).as("%s: entry %d of %d", context(), i, map.size()).isTrue();
            assertThat(cursor.key()).as("%s: key of entry %d", context(), i).isEqualTo(e.getKey());
            assertThat(cursor.value()).as("%s: value of entry %d", context(), i).isEqualTo(e.getValue());
            i++;
        }
        assertThat(cursor.next()).as(context()).isFalse();
    }
}
