package io.sluice.pagestore.internal.tree;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.pagestore.internal.freelist.FreeList;
import io.sluice.pagestore.internal.page.PageMemory;
import io.sluice.pagestore.internal.page.RowStore;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * A sorted walk ({@link SortedWalk#seek}, which searches leaves by interpolation, or past the last position by galloping
 * on a dense walk) finds what a descent finds.
 */
class SortedWalkTest {

    @Test
    void seekFindsEveryPresentKeyAndNoAbsentOneWhateverTheKeyDistribution() {
        long seed = Long.getLong("sluice.seed", System.nanoTime());
        Random random = new Random(seed);
        for (int shape = 0; shape < 5; shape++) {
            try (PageMemory memory = new PageMemory(4096, 1 << 20, 64L << 20)) {
                RowStore rows = new RowStore(memory, new FreeList(memory));
                BPlusTree tree = new BPlusTree(rows);
                SortedWalk walk = new SortedWalk(tree.leafCapacity());
                TreeSet<byte[]> present = new TreeSet<>(Arrays::compareUnsigned);
                for (int i = 0; i < 5000; i++) {
                    byte[] key = key(shape, random);
                    if (present.add(key)) {
                        tree.invoke(key, 0, key.length, old -> rows.add(key, 0, key.length, key, 0, 1));
                    }
                }
                for (int walkKind = 0; walkKind < 8; walkKind++) { // sparse walks land in the middle of leaves
                    int percent = new int[] {1, 5, 30, 100}[walkKind % 4];
                    boolean dense = walkKind >= 4; // galloping from the last position in a leaf
                    List<byte[]> probes = new ArrayList<>();
                    for (byte[] key : present) {
                        if (random.nextInt(100) < percent) {
                            probes.add(key);
                        }
                    }
                    for (int i = 0; i < 10 * percent; i++) {
                        probes.add(key(shape, random));
                    }
                    probes.sort(Arrays::compareUnsigned);
                    walk.start(tree, dense);
                    for (byte[] probe : probes) {
                        boolean found = walk.seek(probe, 0, probe.length);
                        assertThat(found).as("seed %d, shape %d, %d%%, dense %s, key %s", seed, shape, percent, dense,
                                Arrays.toString(probe)).isEqualTo(present.contains(probe));
                        if (found) {
                            assertThat(rows.key(walk.link())).as("seed %d, shape %d: the key's row", seed, shape)
                                    .isEqualTo(probe);
                        }
                    }
                    walk.end();
                }
            }
        }
    }

    @Test
    void theWalkCannotBeMisused() {
        try (PageMemory memory = new PageMemory(4096, 1 << 20, 64L << 20)) {
            RowStore rows = new RowStore(memory, new FreeList(memory));
            BPlusTree tree = new BPlusTree(rows);
            BPlusTree other = new BPlusTree(rows);
            SortedWalk walk = new SortedWalk(tree.leafCapacity());
            byte[] key = number(1);

            assertThatThrownBy(() -> walk.seek(key, 0, key.length)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("start(tree)");
            walk.start(tree);
            assertThatThrownBy(() -> walk.start(other)).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> new SortedWalk(tree.leafCapacity()).start(tree))
                    .as("a second walk on the same tree").isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> tree.invoke(key, 0, key.length, old -> rows.add(key, 0, key.length, key, 0, 1)))
                    .as("a single-key write under the walk").isInstanceOf(IllegalStateException.class);
            assertThat(walk.seek(key, 0, key.length)).isFalse();
            walk.reserveForInsert();
            walk.insert(rows.add(key, 0, key.length, key, 0, 1), key, 0, key.length);
            walk.end();
            walk.end(); // ending twice does nothing

            assertThat(tree.find(key, 0, key.length)).isNotZero();
            assertThat(tree.invoke(key, 0, key.length, old -> 0)).as("single-key writes again after the walk")
                    .isNotZero();
            assertThat(tree.size()).isZero();
            assertThatThrownBy(() -> new SortedWalk(7).start(tree)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    /** 0: dense 9-byte numbers; 1: clusters far apart; 2: 20-byte keys tying on 14 bytes; 3: 1-5 random bytes; 4: mixed. */
    private static byte[] key(int shape, Random random) {
        switch (shape == 4 ? random.nextInt(4) : shape) {
            case 0:
                return number(random.nextInt(20_000));
            case 1:
                return number((long) random.nextInt(6) << 40 | random.nextInt(300));
            case 2: {
                byte[] k = new byte[20];
                k[13] = (byte) random.nextInt(3);
                for (int i = 14; i < 20; i++) {
                    k[i] = (byte) random.nextInt(256);
                }
                return k;
            }
            default: {
                byte[] k = new byte[1 + random.nextInt(5)];
                random.nextBytes(k);
                return k;
            }
        }
    }

    private static byte[] number(long v) {
        byte[] k = new byte[9];
        k[0] = 5;
        for (int i = 0; i < 8; i++) {
            k[1 + i] = (byte) (v >>> (56 - 8 * i));
        }
        return k;
    }
}
