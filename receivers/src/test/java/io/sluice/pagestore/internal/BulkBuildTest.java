package io.sluice.pagestore.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.binary.BinaryObjectBuilder;
import io.sluice.binary.internal.BinaryContext;
import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.pagestore.internal.index.IndexSpec;
import io.sluice.protocol.internal.EntryBatch;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The bulk build of an emptied partition ({@link PartitionStore#replaceAll}: rows appended, the tree built
 * bottom-up) against the same entries applied as batches in random order to a partition of the same region:
 * sizes 0, 1, a leaf's fill and capacity -1/0/+1, random, and many levels (1 KiB pages: 36 items a built leaf);
 * with and without field indexes. Both answer every get, scan and index scan alike, the region's consistency
 * check passes (tree bounds, rows, fill within capacity), both take the same later puts, removals and batches and
 * still agree, a checkpoint's copy of the built partition built again agrees, destroying gives every page back.
 * Entries out of order finish the tree and go through the batch path; a region that fills up leaves the partition
 * empty and no page taken. The seed is printed; replay with {@code -Dsluice.seed=N}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@ExtendWith(Seeds.class)
class BulkBuildTest {

    private static final List<IndexSpec> SPECS = List.of(new IndexSpec(1, List.of("sec")),
            new IndexSpec(2, List.of("account", "price")));
    private static final String[] SECS = {"SBER", "GAZP", "LKOH", "A", "AB", "ABC", "YNDX-LONGER-THAN-TWELVE"};
    private static final int PAGE = 1024;
    /** Items a built leaf holds with 1 KiB pages: 41 fit, 90% are filled. */
    private static final int LEAF_FILL = (PAGE - 32) / 24 * 90 / 100;

    @Test
    void bulkBuiltPartitionsAnswerLikeInsertedOnes() {
        long seed = Seeds.fresh();
        System.out.println("BulkBuildTest seed " + seed + " (replay with -Dsluice.seed=" + seed + ")");
        Random random = new Random(seed);
        int[] sizes = {0, 1, 2, LEAF_FILL - 1, LEAF_FILL, LEAF_FILL + 1, 41, 42, 2 * LEAF_FILL + 1,
                random.nextInt(3_000)};
        for (boolean indexed : new boolean[] {false, true}) {
            for (int size : sizes) {
                new Run(seed ^ size ^ (indexed ? 77 : 0), size, indexed).run();
            }
        }
        // four levels: more than 36 x 27 x 27 entries (a built leaf's and inner page's fill)
        new Run(seed, 27_000 + random.nextInt(2_000), false).run();
    }

    @Test
    void entriesOutOfOrderFinishTheTreeAndTakeTheBatchPath() throws IOException {
        BinaryContext binary = new BinaryContext();
        try (DataRegion region = new DataRegion(new DataRegionConfig(PAGE, 0, 64L << 20), binary)) {
            PartitionStore store = region.createPartition(journal(), SPECS);
            Run values = new Run(5, 0, true);
            List<byte[][]> first = new ArrayList<>();
            List<byte[][]> second = new ArrayList<>();
            TreeMap<byte[], byte[]> expected = new TreeMap<>(Arrays::compareUnsigned);
            for (int i = 0; i < 3_000; i++) {
                byte[] key = String.format("k%06d", i * 2).getBytes();
                byte[] value = values.value(binary);
                first.add(new byte[][] {key, value});
                expected.put(key, value);
            }
            for (int i = 0; i < 1_000; i++) { // odd keys among them, and some of the first's keys again
                byte[] key = String.format("k%06d", i % 3 == 0 ? i * 2 : i * 2 + 1).getBytes();
                byte[] value = values.value(binary);
                second.add(new byte[][] {key, value});
                expected.putIfAbsent(key, value);
            }
            long handed = store.replaceAll(apply -> {
                apply.accept(batch(first.subList(0, 1_500)));
                apply.accept(batch(first.subList(1_500, 3_000)));
                apply.accept(batch(second));
                return 4_000;
            }, "file");
            assertThat(handed).isEqualTo(4_000);
            assertThat(store.size()).isEqualTo(expected.size());
            PartitionStore reference = region.createPartition(journal(), SPECS);
            reference.applyBatch(batch(first), BatchMode.INSERT_IF_ABSENT);
            reference.applyBatch(batch(second), BatchMode.INSERT_IF_ABSENT);
            assertSame(store, reference, expected, "out of order");
            ConsistencyCheckTest.assertConsistent(region, "out of order");
        }
    }

    @Test
    void aRegionThatFillsUpLeavesThePartitionEmptyAndNoPageTaken() {
        BinaryContext binary = new BinaryContext();
        try (DataRegion region = new DataRegion(new DataRegionConfig(PAGE, 0, 4L << 20), binary)) {
            for (boolean indexed : new boolean[] {false, true}) {
                PartitionStore store = indexed ? region.createPartition(journal(), SPECS) : region.createPartition(journal());
                long used = region.usedPages();
                Run values = new Run(9, 0, indexed);
                List<byte[][]> entries = new ArrayList<>();
                for (int i = 0; i < 40_000; i++) { // ~8 MB of rows in a 4 MiB region
                    entries.add(new byte[][] {String.format("key-%08d", i).getBytes(), values.value(binary)});
                }
                assertThatThrownBy(() -> store.replaceAll(apply -> {
                    for (int from = 0; from < entries.size(); from += 1_000) {
                        apply.accept(batch(entries.subList(from, from + 1_000)));
                    }
                    return entries.size();
                }, "file")).isInstanceOf(BatchApplyException.class);
                assertThat(store.size()).isZero();
                assertThat(region.usedPages()).as("pages in use after the failed load").isEqualTo(used);
                ConsistencyCheckTest.assertConsistent(region, "after a full region, indexed " + indexed);
                store.applyBatch(batch(entries.subList(0, 100)), BatchMode.UPSERT); // usable again
                assertThat(store.size()).isEqualTo(100);
                store.destroy();
            }
        }
    }

    /** One size: the bulk-built partition and the inserted one, compared before and after later writes. */
    private static final class Run {
        final long seed;
        final int size;
        final boolean indexed;
        final Random random;

        Run(long seed, int size, boolean indexed) {
            this.seed = seed;
            this.size = size;
            this.indexed = indexed;
            this.random = new Random(seed);
        }

        void run() {
            String at = "seed " + seed + ", " + size + " entries, " + (indexed ? "indexed" : "no index");
            BinaryContext binary = new BinaryContext();
            try (DataRegion region = new DataRegion(new DataRegionConfig(PAGE, 0, 256L << 20), binary)) {
                TreeMap<byte[], byte[]> expected = new TreeMap<>(Arrays::compareUnsigned);
                while (expected.size() < size) {
                    expected.put(key(), value(binary));
                }
                PartitionStore built = partition(region);
                PartitionStore inserted = partition(region);
                List<byte[][]> shuffled = new ArrayList<>();
                expected.forEach((k, v) -> shuffled.add(new byte[][] {k, v}));
                Collections.shuffle(shuffled, random);
                for (int from = 0; from < shuffled.size(); from += 500) {
                    inserted.applyBatch(batch(shuffled.subList(from, Math.min(shuffled.size(), from + 500))),
                            BatchMode.INSERT_IF_ABSENT);
                }
                bulk(built, expected);
                assertSame(built, inserted, expected, at + ", as built");
                ConsistencyCheckTest.assertConsistent(region, at + ", as built");

                // later writes, the same to both
                for (int op = 0; op < 100; op++) {
                    int kind = random.nextInt(4);
                    if (kind == 0) {
                        byte[] k = key();
                        byte[] v = value(binary);
                        built.put(k, 0, k.length, v, 0, v.length);
                        inserted.put(k, 0, k.length, v, 0, v.length);
                        expected.put(k, v);
                    } else if (kind == 1 && !expected.isEmpty()) {
                        byte[] k = storedKey(expected);
                        assertThat(built.remove(k, 0, k.length)).isTrue();
                        inserted.remove(k, 0, k.length);
                        expected.remove(k);
                    } else {
                        GrowableBuffer out = new GrowableBuffer(1024);
                        int n = 1 + random.nextInt(200);
                        TreeMap<byte[], byte[]> last = new TreeMap<>(Arrays::compareUnsigned);
                        for (int i = 0; i < n; i++) {
                            byte[] k = random.nextInt(3) == 0 && !expected.isEmpty() ? storedKey(expected) : key();
                            byte[] v = random.nextInt(6) == 0 ? null : value(binary);
                            EntryBatch.append(out, k, v);
                            last.put(k, v);
                        }
                        EntryBatch b = new EntryBatch(out.array(), out.position(), n);
                        built.applyBatch(b, BatchMode.UPSERT);
                        inserted.applyBatch(new EntryBatch(out.array(), out.position(), n), BatchMode.UPSERT);
                        last.forEach((k, v) -> {
                            if (v == null) {
                                expected.remove(k);
                            } else {
                                expected.put(k, v);
                            }
                        });
                    }
                }
                assertSame(built, inserted, expected, at + ", after later writes");
                ConsistencyCheckTest.assertConsistent(region, at + ", after later writes");

                // a checkpoint's copy of it, built again (a restart's or another node's load)
                EntryImage image = new EntryImage();
                built.copyIfChanged(-1, image);
                PartitionStore reloaded = partition(region);
                try {
                    reloaded.replaceAll(apply -> {
                        if (image.count() > 0) {
                            apply.accept(new EntryBatch(image.data(), image.length(), image.count()));
                        }
                        return image.count();
                    }, "copy");
                } catch (IOException e) {
                    throw new AssertionError(e);
                }
                assertSame(reloaded, inserted, expected, at + ", the copy built again");
                ConsistencyCheckTest.assertConsistent(region, at + ", the copy built again");
                built.destroy();
                inserted.destroy();
                reloaded.destroy();
                assertThat(region.usedPages()).as(at + ": pages in use after destroy").isZero();
            }
        }

        private PartitionStore partition(DataRegion region) {
            return indexed ? region.createPartition(journal(), SPECS) : region.createPartition(journal());
        }

        private void bulk(PartitionStore store, TreeMap<byte[], byte[]> entries) {
            List<byte[][]> sorted = new ArrayList<>();
            entries.forEach((k, v) -> sorted.add(new byte[][] {k, v}));
            try {
                long handed = store.replaceAll(apply -> {
                    int from = 0;
                    while (from < sorted.size()) { // batches of random sizes, as a file's blocks gather
                        int to = Math.min(sorted.size(), from + 1 + random.nextInt(3_000));
                        apply.accept(batch(sorted.subList(from, to)));
                        from = to;
                    }
                    return sorted.size();
                }, "file");
                assertThat(handed).isEqualTo(entries.size());
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        }

        private byte[] key() {
            int n = random.nextInt(1_000_000);
            return switch (random.nextInt(3)) {
                case 0 -> new byte[] {1, (byte) (n >>> 16), (byte) (n >>> 8), (byte) n};
                case 1 -> ("customer-order-" + String.format("%08d", n)).getBytes();
                default -> {
                    byte[] k = new byte[1 + random.nextInt(30)];
                    random.nextBytes(k);
                    k[0] = (byte) 0xF0;
                    yield k;
                }
            };
        }

        private byte[] storedKey(TreeMap<byte[], byte[]> entries) {
            byte[] probe = key();
            byte[] k = entries.ceilingKey(probe);
            return k != null ? k : entries.firstKey();
        }

        byte[] value(BinaryContext binary) {
            if (random.nextInt(10) == 0) { // not a binary object
                byte[] b = new byte[random.nextInt(40)];
                random.nextBytes(b);
                if (b.length > 0 && b[0] == 0x20) {
                    b[0] = 0x21;
                }
                return b;
            }
            BinaryObjectBuilder b = binary.builder("Order");
            b.setField("sec", SECS[random.nextInt(SECS.length)]);
            b.setField("account", (long) random.nextInt(50));
            b.setField("price", (double) random.nextInt(100) / 4);
            if (random.nextInt(40) == 0) { // a row in fragments
                b.setField("note", "n".repeat(random.nextInt(3 * PAGE)));
            }
            return b.build().toBytes();
        }
    }

    private static StoreJournal journal() {
        return StoreJournal.NONE;
    }

    private static EntryBatch batch(List<byte[][]> entries) {
        GrowableBuffer out = new GrowableBuffer(1024);
        for (byte[][] e : entries) {
            EntryBatch.append(out, e[0], e[1]);
        }
        return new EntryBatch(out.array(), out.position(), entries.size());
    }

    /** Both partitions hold exactly {@code expected}: sizes, gets, scans, and every index's full scan. */
    private static void assertSame(PartitionStore actual, PartitionStore reference, TreeMap<byte[], byte[]> expected,
                                   String at) {
        assertThat(actual.size()).as(at + ": size").isEqualTo(expected.size());
        assertThat(reference.size()).as(at + ": reference size").isEqualTo(expected.size());
        for (Map.Entry<byte[], byte[]> e : expected.entrySet()) {
            byte[] k = e.getKey();
            assertThat(actual.get(k, 0, k.length)).as(at + ": get").isEqualTo(e.getValue());
        }
        byte[] absent = {2, 0, 0};
        assertThat(actual.get(absent, 0, absent.length)).isNull();
        StoreCursor cursor = actual.cursor();
        List<byte[]> scanned = new ArrayList<>();
        while (cursor.next()) {
            scanned.add(cursor.key());
        }
        assertThat(scanned).as(at + ": scan").containsExactlyElementsOf(expected.keySet());
        byte[] middle = expected.isEmpty() ? null : new ArrayList<>(expected.keySet()).get(expected.size() / 2);
        if (middle != null) {
            StoreCursor after = actual.cursorAfter(middle);
            List<byte[]> tail = new ArrayList<>();
            while (after.next()) {
                tail.add(after.key());
            }
            assertThat(tail).as(at + ": scan after a key").containsExactlyElementsOf(expected.tailMap(middle, false).keySet());
        }
        assertThat(actual.index().ids()).isEqualTo(reference.index().ids());
        for (int id : actual.index().ids()) {
            assertThat(indexScan(actual, id)).as(at + ": index " + id).containsExactlyElementsOf(indexScan(reference, id));
        }
    }

    private static List<String> indexScan(PartitionStore store, int id) {
        List<String> visits = new ArrayList<>();
        store.index().scan(id, null, true, null, true, null, (indexKey, key, value) -> {
            visits.add(Arrays.toString(indexKey) + Arrays.toString(key) + Arrays.hashCode(value));
            return true;
        });
        return visits;
    }
}
