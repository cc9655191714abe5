package io.sluice.query.internal;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/** Paged sources merged by index key give the model's order, pages resuming after the last key, limits kept. */
@Timeout(30)
class IndexMergeTest {

    /** A sorted in-memory source, paged as a partition or a node is. */
    private static final class ListSource extends PagedIndexEntries {
        private final List<byte[]> keys;
        int fetches;

        ListSource(List<byte[]> sorted, byte[] after, long limit) {
            super(after, 2, 8, limit);
            this.keys = sorted;
        }

        @Override
        protected IndexPage fetch(byte[] after, int max) {
            fetches++;
            IndexPage page = new IndexPage(max);
            for (byte[] k : keys) {
                if ((after == null || Arrays.compareUnsigned(k, after) > 0) && page.size() < max) {
                    page.add(k, k, k);
                }
            }
            return page.more(page.size() == max);
        }
    }

    @Test
    void mergeEqualsTheModelUnderRandomSources() {
        long seed = System.nanoTime();
        System.out.println("IndexMergeTest seed " + seed);
        Random random = new Random(seed);
        for (int round = 0; round < 200; round++) {
            int n = 1 + random.nextInt(6);
            TreeMap<byte[], Boolean> model = new TreeMap<>(Arrays::compareUnsigned);
            List<List<byte[]>> lists = new ArrayList<>();
            for (int s = 0; s < n; s++) {
                TreeMap<byte[], Boolean> one = new TreeMap<>(Arrays::compareUnsigned);
                int size = random.nextInt(40);
                for (int i = 0; i < size; i++) {
                    // Distinct across sources: the source's number ends the key, as the entry key ends an index key.
                    byte[] k = ByteBuffer.allocate(5).putInt(random.nextInt(50)).put((byte) s).array();
                    one.put(k, true);
                    model.put(k, true);
                }
                lists.add(new ArrayList<>(one.keySet()));
            }
            byte[] after = random.nextBoolean() ? null : ByteBuffer.allocate(5).putInt(random.nextInt(50)).array();
            long limit = random.nextBoolean() ? Long.MAX_VALUE : 1 + random.nextInt(30);
            List<IndexEntries> sources = new ArrayList<>();
            for (List<byte[]> l : lists) {
                sources.add(new ListSource(l, after, limit));
            }
            List<byte[]> expected = new ArrayList<>(after == null ? model.keySet() : model.tailMap(after, false).keySet());
            expected = expected.subList(0, (int) Math.min(limit, expected.size()));
            List<byte[]> got = new ArrayList<>();
            try (IndexMerge merge = new IndexMerge(sources)) {
                while (got.size() < limit && merge.next()) {
                    got.add(merge.indexKey());
                }
            }
            assertThat(got).as("round %d (seed %d)", round, seed).usingElementComparator(Arrays::compareUnsigned)
                    .containsExactlyElementsOf(expected);
        }
    }

    /**
     * The tree of losers against the model with many sources (not a power of two, up to a node's 1,024 partitions)
     * and keys that share their first 16 bytes or more (compared past the two longs), keys shorter than 16 bytes that
     * are prefixes of others or end in zeros (the longs' zero padding must not make them equal), sources that run dry
     * at different times, limits and pages resumed after the last key.
     */
    @Test
    void mergeOfManySourcesEqualsTheModelForKeysSharingLongPrefixes() {
        long seed = System.nanoTime();
        System.out.println("IndexMergeTest many sources seed " + seed);
        Random random = new Random(seed);
        byte[][] prefixes = {new byte[0], new byte[]{0}, new byte[]{0, 0, 0}, new byte[7], "0123456789abcdef".getBytes(),
                "0123456789abcdef0123".getBytes(), new byte[]{(byte) 0xFF, (byte) 0xFF, 1, 2, 3, 4, 5, 6, 7, 8, 9}};
        for (int round = 0; round < 60; round++) {
            int n = round < 3 ? new int[]{1024, 1000, 3}[round] : 1 + random.nextInt(300);
            TreeMap<byte[], Boolean> model = new TreeMap<>(Arrays::compareUnsigned);
            List<List<byte[]>> lists = new ArrayList<>();
            for (int s = 0; s < n; s++) {
                TreeMap<byte[], Boolean> one = new TreeMap<>(Arrays::compareUnsigned);
                int size = random.nextInt(n > 100 ? 6 : 30);
                for (int i = 0; i < size; i++) {
                    byte[] prefix = prefixes[random.nextInt(prefixes.length)];
                    int tail = random.nextInt(4);
                    ByteBuffer k = ByteBuffer.allocate(prefix.length + tail + 2);
                    k.put(prefix);
                    for (int t = 0; t < tail; t++) {
                        k.put((byte) (random.nextBoolean() ? 0 : random.nextInt(256)));
                    }
                    k.putShort((short) s); // the source's number ends the key, as the entry key ends an index key
                    one.put(k.array(), true);
                    model.put(k.array(), true);
                }
                lists.add(new ArrayList<>(one.keySet()));
            }
            byte[] after = random.nextInt(3) > 0 ? null : prefixes[random.nextInt(prefixes.length)];
            long limit = random.nextBoolean() ? Long.MAX_VALUE : 1 + random.nextInt(200);
            List<IndexEntries> sources = new ArrayList<>();
            for (List<byte[]> l : lists) {
                sources.add(new ListSource(l, after, limit));
            }
            List<byte[]> expected = new ArrayList<>(after == null ? model.keySet() : model.tailMap(after, false).keySet());
            expected = expected.subList(0, (int) Math.min(limit, expected.size()));
            List<byte[]> got = new ArrayList<>();
            try (IndexMerge merge = new IndexMerge(sources)) {
                while (got.size() < limit && merge.next()) {
                    got.add(merge.indexKey());
                    assertThat(merge.key()).isEqualTo(merge.indexKey()); // ListSource's keys are whole index keys
                    assertThat(merge.value()).isEqualTo(merge.indexKey());
                }
                assertThat(got.size() < limit && merge.next()).as("nothing after the end").isFalse();
            }
            assertThat(got).as("round %d, %d sources (seed %d)", round, n, seed)
                    .usingElementComparator(Arrays::compareUnsigned).containsExactlyElementsOf(expected);
        }
    }

    @Test
    void pagesGrowWhileTheSourceIsRead() {
        List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            keys.add(new byte[]{(byte) i});
        }
        ListSource source = new ListSource(keys, null, Long.MAX_VALUE);
        int n = 0;
        while (source.next()) {
            n++;
        }
        assertThat(n).isEqualTo(100);
        // pages of 2 and 4, then of 8 (the maximum): 11 full ones and a last one of 6, which says no more
        assertThat(source.fetches).isEqualTo(2 + 12);
    }
}
