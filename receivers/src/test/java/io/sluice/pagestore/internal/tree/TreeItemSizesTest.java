package io.sluice.pagestore.internal.tree;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.pagestore.internal.freelist.FreeList;
import io.sluice.pagestore.internal.page.PageCheck;
import io.sluice.pagestore.internal.page.PageMemory;
import io.sluice.pagestore.internal.page.RowStore;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Trees of narrow and of wide items ({@link TreePageIO#WIDE_ITEM}) against a {@code TreeMap} under sorted walks
 * that insert, relink and remove in one pass (across leaf and inner splits and merges) and single-key writes, with
 * keys shaped like index keys: long runs of keys that share a field part and tie on 12, 20 or more than 28 bytes.
 * After every batch the tree's pages pass {@link TreeCheck} and its scan equals the model. The same with keys kept
 * in items ({@link BPlusTree#keysInItems}, as index trees do): keys that fit an item carry the caller's link, which
 * the tree never frees (the test owns those rows and frees them itself), and keys that don't fit keep rows.
 */
class TreeItemSizesTest {

    /** keysInItems false: every item refers to its row; true: keys that fit hold the caller's links. */
    @ParameterizedTest(name = "keys in items: {0}")
    @ValueSource(booleans = {false, true})
    void sortedWalksAndSingleWritesKeepTheTreeEqualToTheModelForBothItemSizes(boolean keysInItems) {
        long seed = Long.getLong("sluice.seed", System.nanoTime());
        for (int item : new int[] {TreePageIO.ITEM, TreePageIO.WIDE_ITEM}) {
            for (int shape = 0; shape < 4; shape++) {
                run(seed, item, shape, keysInItems);
            }
        }
    }

    private static void run(long seed, int item, int shape, boolean keysInItems) {
        Random random = new Random(seed ^ shape * 31L ^ item);
        String as = String.format("seed %d, item %d, shape %d, keys in items %b", seed, item, shape, keysInItems);
        try (PageMemory memory = new PageMemory(1024, 1 << 20, 256L << 20)) { // small pages: many splits and merges
            RowStore rows = new RowStore(memory, new FreeList(memory));
            BPlusTree tree = new BPlusTree(rows, item);
            tree.keysInItems(keysInItems);
            assertThat(tree.itemSize()).isEqualTo(item);
            // the rows of keys held in items: the caller's (an entry's row), freed by the test, never by the tree
            TreeMap<byte[], Long> owned = new TreeMap<>(Arrays::compareUnsigned);
            SortedWalk walk = new SortedWalk(TreePageIO.leafCapacity(memory.pageSize()));
            TreeMap<byte[], Long> model = new TreeMap<>(Arrays::compareUnsigned);
            long next = 1;
            for (int batch = 0; batch < 30; batch++) {
                // a sorted batch of distinct keys: new ones, present ones (relinked or removed), absent removals
                TreeMap<byte[], Integer> ops = new TreeMap<>(Arrays::compareUnsigned);
                int size = 1 + random.nextInt(batch % 5 == 0 ? 600 : 80);
                List<byte[]> present = new ArrayList<>(model.keySet());
                for (int i = 0; i < size; i++) {
                    if (!present.isEmpty() && random.nextInt(3) == 0) {
                        ops.put(present.get(random.nextInt(present.size())), random.nextInt(2)); // 0 relink, 1 remove
                    } else {
                        ops.put(key(shape, random), random.nextInt(5) == 0 ? 1 : 0);
                    }
                }
                walk.start(tree, batch % 2 == 1); // every other batch a dense walk (galloping in leaves)
                try {
                    for (var op : ops.entrySet()) {
                        byte[] k = op.getKey();
                        boolean found = walk.seek(k, 0, k.length);
                        assertThat(found).as("%s, batch %d: present", as, batch).isEqualTo(model.containsKey(k));
                        if (op.getValue() == 1) {
                            if (found) {
                                assertThat(rows.key(walk.link())).as(as).isEqualTo(k);
                                long old = walk.link();
                                walk.remove(k, 0, k.length);
                                released(as, rows, tree, owned, k, old);
                                model.remove(k);
                            }
                        } else if (found) {
                            long v = next++;
                            long old = walk.link();
                            walk.replace(link(rows, tree, owned, k, v));
                            released(as, rows, tree, owned, k, old);
                            model.put(k, v);
                        } else {
                            long v = next++;
                            walk.reserveForInsert();
                            walk.insert(link(rows, tree, owned, k, v), k, 0, k.length);
                            model.put(k, v);
                        }
                    }
                } finally {
                    walk.end();
                }
                for (int i = 0; i < 20; i++) { // single-key writes between the walks
                    byte[] k = random.nextBoolean() || model.isEmpty() ? key(shape, random)
                            : new ArrayList<>(model.keySet()).get(random.nextInt(model.size()));
                    boolean remove = random.nextInt(3) == 0;
                    long v = next++;
                    long old = tree.invoke(k, 0, k.length, o -> remove ? 0 : link(rows, tree, owned, k, v));
                    if (old != 0) {
                        released(as, rows, tree, owned, k, old);
                    }
                    if (remove) {
                        model.remove(k);
                    } else {
                        model.put(k, v);
                    }
                }
                check(as + ", batch " + batch, memory, rows, tree, model);
            }
            tree.destroy();
            for (long link : owned.values()) { // still live after the tree freed its own: the tree never freed them
                rows.remove(link);
            }
        }
    }

    /** A new link for the key: a row holding the key and the value (the caller's when the tree keeps the key in the item). */
    private static long link(RowStore rows, BPlusTree tree, TreeMap<byte[], Long> owned, byte[] k, long v) {
        long link = rows.add(k, 0, k.length, longBytes(v), 0, 8);
        if (tree.keyInItem(k.length)) {
            owned.put(k, link);
        }
        return link;
    }

    /**
     * After the key's old link left the tree: a row the tree owned is freed by it; the caller's row of a key kept in
     * its item is still live (the tree freed nothing), and the test frees it.
     */
    private static void released(String as, RowStore rows, BPlusTree tree, TreeMap<byte[], Long> owned, byte[] k,
                                 long old) {
        if (!tree.keyInItem(k.length)) {
            return;
        }
        assertThat(rows.key(old)).as("%s: the caller's row of a key kept in its item is not freed by the tree", as)
                .isEqualTo(k);
        owned.remove(k, old); // a removal: the key no longer refers to it (a relink already recorded the new one)
        rows.remove(old);
    }

    private static void check(String as, PageMemory memory, RowStore rows, BPlusTree tree,
                              TreeMap<byte[], Long> model) {
        PageCheck pages = new PageCheck(memory);
        assertThat(TreeCheck.check(tree, pages, "tree")).as(as).isEqualTo(model.size());
        assertThat(pages.problems()).as(as).isEmpty();
        List<byte[]> scanned = new ArrayList<>();
        List<Long> values = new ArrayList<>();
        tree.scan(null, link -> {
            scanned.add(rows.key(link));
            byte[] v = new byte[8];
            rows.read(link, 8 + rows.key(link).length, v, 0, 8);
            values.add(java.nio.ByteBuffer.wrap(v).getLong());
            return true;
        });
        assertThat(scanned).as(as).containsExactlyElementsOf(model.keySet());
        assertThat(values).as(as).containsExactlyElementsOf(model.values());
        List<byte[]> keysInItems = new ArrayList<>();
        tree.scanKeysFrom(null, true, (link, key) -> {
            byte[] expected = rows.key(link);
            assertThat(key == null ? expected : key).as(as).isEqualTo(expected);
            assertThat(key != null).as(as).isEqualTo(tree.keyInItem(expected.length));
            keysInItems.add(expected);
            return true;
        });
        assertThat(keysInItems).as(as).containsExactlyElementsOf(model.keySet());
        int i = 0;
        for (byte[] k : model.keySet()) {
            if (i++ % 7 == 0) {
                assertThat(tree.find(k, 0, k.length)).as(as).isNotZero();
            }
        }
    }

    /**
     * 0: index-like keys, a 14-byte field part of 3 values, 4 hash bytes, a 9-byte key (tie on 12 bytes); 1: a
     * 6-byte field part of 2 values, then the key (ties within 12); 2: 40-byte keys tying on their first 30 bytes
     * (past a wide item's 28); 3: keys of 1 to 35 bytes over a 2-letter alphabet (prefixes of each other).
     */
    private static byte[] key(int shape, Random random) {
        switch (shape) {
            case 0: {
                byte[] k = new byte[27];
                k[0] = 9;
                byte[] account = String.format("L01-0000%04d", random.nextInt(3)).getBytes();
                System.arraycopy(account, 0, k, 1, 12);
                int v = random.nextInt(1 << 20);
                k[14] = 0;
                k[15] = (byte) (v >>> 16);
                k[16] = (byte) (v >>> 8);
                k[17] = (byte) v;
                k[18] = 5;
                k[24] = (byte) (v >>> 16);
                k[25] = (byte) (v >>> 8);
                k[26] = (byte) v;
                return k;
            }
            case 1: {
                byte[] k = new byte[15];
                k[0] = 9;
                k[1] = (byte) ('A' + random.nextInt(2));
                k[6] = 5;
                int v = random.nextInt(1 << 16);
                k[13] = (byte) (v >>> 8);
                k[14] = (byte) v;
                return k;
            }
            case 2: {
                byte[] k = new byte[40];
                Arrays.fill(k, 0, 30, (byte) 7);
                for (int i = 30; i < 40; i++) {
                    k[i] = (byte) random.nextInt(4);
                }
                return k;
            }
            default: {
                byte[] k = new byte[1 + random.nextInt(35)];
                for (int i = 0; i < k.length; i++) {
                    k[i] = (byte) random.nextInt(2);
                }
                return k;
            }
        }
    }

    private static byte[] longBytes(long v) {
        return java.nio.ByteBuffer.allocate(8).putLong(v).array();
    }
}
