package io.sluice.pagestore.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.protocol.internal.EntryBatch;
import io.sluice.pagestore.internal.page.PageHeader;
import io.sluice.pagestore.internal.page.PageMemory;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The store's own consistency check ({@link DataRegion#checkConsistency}): a store built by every kind of write
 * passes; a page damaged by writing bytes straight into page memory is reported, naming partition and page.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConsistencyCheckTest {

    /** Fails with the report unless the region is consistent. */
    static ConsistencyReport assertConsistent(DataRegion region, String at) {
        ConsistencyReport report = region.checkConsistency(p -> "partition@" + System.identityHashCode(p));
        assertThat(report.ok()).as(at + ": " + report).isTrue();
        return report;
    }

    private static byte[] key(int i) {
        return ByteBuffer.allocate(9).put((byte) 1).putLong(i * 7919L).array();
    }

    private static byte[] value(Random random, int i) {
        byte[] v = new byte[random.nextInt(20) == 0 ? 5_000 + random.nextInt(20_000) : 10 + random.nextInt(300)];
        random.nextBytes(v);
        return v;
    }

    /** Two partitions written by batches, puts (some in place, some moved), removals and rows over many pages. */
    private static DataRegion filledRegion(Map<String, PartitionStore> named) {
        DataRegion region = new DataRegion(new DataRegionConfig(4096, 0, 256L << 20));
        Random random = new Random(42);
        for (String name : new String[] {"a", "b"}) {
            PartitionStore store = region.createPartition();
            named.put(name, store);
            for (int round = 0; round < 10; round++) {
                GrowableBuffer out = new GrowableBuffer(1 << 16);
                for (int i = 0; i < 500; i++) {
                    int k = round * 400 + i;
                    EntryBatch.append(out, key(k), random.nextInt(10) == 0 ? null : value(random, k));
                }
                store.applyBatch(new EntryBatch(out.array(), out.position(), 500),
                        round % 2 == 0 ? BatchMode.UPSERT : BatchMode.INSERT_IF_ABSENT);
            }
            for (int i = 0; i < 2_000; i++) {
                byte[] k = key(random.nextInt(5_000));
                if (random.nextInt(3) == 0) {
                    store.remove(k, 0, k.length);
                } else {
                    byte[] v = value(random, i);
                    store.put(k, 0, k.length, v, 0, v.length);
                }
            }
        }
        return region;
    }

    private static ConsistencyReport check(DataRegion region, Map<String, PartitionStore> named) {
        return region.checkConsistency(p -> named.entrySet().stream().filter(e -> e.getValue() == p)
                .map(e -> "partition " + e.getKey()).findFirst().orElse("?"));
    }

    @Test
    void aStoreBuiltByEveryKindOfWritePasses() {
        Map<String, PartitionStore> named = new java.util.LinkedHashMap<>();
        try (DataRegion region = filledRegion(named)) {
            ConsistencyReport report = check(region, named);
            assertThat(report.ok()).as(report.toString()).isTrue();
            assertThat(report.partitions()).isEqualTo(2);
            assertThat(report.entries()).isEqualTo(named.get("a").size() + named.get("b").size()).isGreaterThan(3_000);
            assertThat(report.fragmentPages()).as("rows over several pages were checked").isPositive();
            assertThat(report.freePages()).as("removals returned pages").isPositive();
            assertThat(report.toString()).startsWith("consistent: 2 partitions");
            named.get("a").destroy(); // its pages go to the free list; the other partition stays sound
            assertThat(check(region, named).ok()).isTrue();
        }
    }

    /** Damages the first page of the type, then checks; the report must name the page. */
    private static ConsistencyReport damage(byte type, Consumer<Integer> writer, DataRegion region, PageMemory memory,
                                            long[] damaged) {
        for (long page = 1; page <= memory.allocatedPages(); page++) {
            ByteBuffer b = memory.buffer(page);
            int p = memory.offset(page);
            if (PageHeader.type(b, p) == type && b.getShort(p + 24) > 2) {
                damaged[0] = page;
                writer.accept(p);
                return null;
            }
        }
        throw new AssertionError("no page of type " + type);
    }

    @Test
    void aLeafItemWhoseKeyIsNotItsRowsIsReported() {
        Map<String, PartitionStore> named = new java.util.LinkedHashMap<>();
        try (DataRegion region = filledRegion(named)) {
            PageMemory memory = region.memory();
            long[] page = new long[1];
            damage(PageHeader.TYPE_LEAF, p -> memory.buffer(page[0]).put(p + 32 + 1 * 24 + 15, (byte) 0x5A), region,
                    memory, page); // a prefix byte of item 1
            ConsistencyReport report = check(region, named);
            assertThat(report.ok()).isFalse();
            assertThat(report.problems()).anySatisfy(problem -> assertThat(problem)
                    .containsPattern("partition [ab]: tree page " + page[0] + " .* item 1: the item's key .* is not its row's stored key"));
        }
    }

    @Test
    void twoLeafItemsOutOfOrderAreReported() {
        Map<String, PartitionStore> named = new java.util.LinkedHashMap<>();
        try (DataRegion region = filledRegion(named)) {
            PageMemory memory = region.memory();
            long[] page = new long[1];
            damage(PageHeader.TYPE_LEAF, p -> {
                ByteBuffer b = memory.buffer(page[0]);
                byte[] first = new byte[24];
                byte[] second = new byte[24];
                b.get(p + 32, first);
                b.get(p + 56, second);
                b.put(p + 32, second);
                b.put(p + 56, first);
            }, region, memory, page);
            ConsistencyReport report = check(region, named);
            assertThat(report.problems()).anySatisfy(problem -> assertThat(problem)
                    .contains("tree page " + page[0]).contains("item 1: its key is not greater than the key before it"));
        }
    }

    @Test
    void aDataPageClaimingTheWrongFreeSpaceIsReported() {
        Map<String, PartitionStore> named = new java.util.LinkedHashMap<>();
        try (DataRegion region = filledRegion(named)) {
            PageMemory memory = region.memory();
            long[] page = new long[1];
            damage(PageHeader.TYPE_DATA, p -> {
                ByteBuffer b = memory.buffer(page[0]);
                b.putShort(p + 26, (short) (b.getShort(p + 26) + 100)); // free bytes
            }, region, memory, page);
            ConsistencyReport report = check(region, named);
            assertThat(report.problems()).anySatisfy(problem -> assertThat(problem)
                    .contains("page " + page[0] + ": it claims").contains("free bytes but has"));
        }
    }

    @Test
    void aTreePageAlsoInTheFreeListIsReported() {
        Map<String, PartitionStore> named = new java.util.LinkedHashMap<>();
        try (DataRegion region = filledRegion(named)) {
            PageMemory memory = region.memory();
            long[] page = new long[1];
            // the first free page's next link now points at a leaf: the leaf is both free and in use
            long free = -1;
            long leaf = -1;
            for (long id = 1; id <= memory.allocatedPages(); id++) {
                byte type = PageHeader.type(memory.buffer(id), memory.offset(id));
                if (type == PageHeader.TYPE_FREE && free < 0) {
                    free = id;
                } else if (type == PageHeader.TYPE_LEAF && leaf < 0) {
                    leaf = id;
                }
            }
            assertThat(free).isPositive();
            // walk to the reuse bucket's last page, then link the leaf after it
            long tail = free;
            for (long id = 1; id <= memory.allocatedPages(); id++) {
                ByteBuffer b = memory.buffer(id);
                int p = memory.offset(id);
                if (PageHeader.type(b, p) == PageHeader.TYPE_FREE && b.getLong(p + PageHeader.FREE_LIST_NEXT) == 0) {
                    tail = id;
                }
            }
            memory.buffer(tail).putLong(memory.offset(tail) + PageHeader.FREE_LIST_NEXT, leaf);
            page[0] = leaf;
            ConsistencyReport report = check(region, named);
            assertThat(report.problems()).anySatisfy(problem -> assertThat(problem)
                    .contains("reuse bucket").contains("page " + page[0] + " is used as a free page but was already found as a tree page"));
        }
    }
}
