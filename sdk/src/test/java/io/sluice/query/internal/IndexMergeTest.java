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
