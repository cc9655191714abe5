package io.sluice.pagestore.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.binary.internal.BinaryContext;
import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.pagestore.internal.index.HeldChangesBudget;
import io.sluice.pagestore.internal.index.HeldIndexChanges;
import io.sluice.pagestore.internal.index.IndexSpec;
import io.sluice.protocol.internal.EntryBatch;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A partition holds its batches' index changes over several batches ({@link HeldIndexChanges}); whatever reads or
 * writes the index trees otherwise applies them first, and what a later batch does to an entry whose change is held
 * (moves it, removes it) wins.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class HeldIndexChangesTest {

    private static final IndexSpec SEC = new IndexSpec(1, List.of("sec"));
    private static final IndexSpec ACCOUNT = new IndexSpec(2, List.of("account"));

    private final BinaryContext binary = new BinaryContext();
    private DataRegion region;
    private PartitionStore store;

    private void open(long heldLimit) {
        region = new DataRegion(new DataRegionConfig(1024, 0, 16L << 20), binary, new HeldChangesBudget(heldLimit));
        store = region.createPartition(StoreJournal.NONE, List.of(SEC, ACCOUNT));
    }

    @AfterEach
    void close() {
        region.close();
    }

    @Test
    void batchesBelowTheThresholdAreHeldAndAQueryAppliesThemFirst() {
        open(HeldChangesBudget.DEFAULT_LIMIT);
        for (int b = 0; b < 3; b++) {
            int from = b * 100;
            batch(IntStream.range(from, from + 100).mapToObj(i -> "k" + i).toList(), i -> "S" + i % 3);
        }
        assertThat(store.indexes().holding()).as("300 entries' changes held").isTrue();

        assertThat(keys(SEC, null)).hasSize(300);
        assertThat(store.indexes().holding()).isFalse();
        assertThat(keys(ACCOUNT, null)).hasSize(300);
        ConsistencyCheckTest.assertConsistent(region, "held changes applied by a query");
    }

    @Test
    void theBudgetTellsTheBytesOfTheChangesHeldAsTheyAreHeldAndApplied() {
        HeldChangesBudget budget = new HeldChangesBudget(HeldChangesBudget.DEFAULT_LIMIT);
        region = new DataRegion(new DataRegionConfig(1024, 0, 16L << 20), binary, budget);
        List<Long> told = new java.util.concurrent.CopyOnWriteArrayList<>();
        budget.whenHeld(told::add); // in place of the region's own listener
        store = region.createPartition(StoreJournal.NONE, List.of(SEC, ACCOUNT));
        batch(IntStream.range(0, 100).mapToObj(i -> "k" + i).toList(), i -> "S" + i % 3);
        batch(IntStream.range(100, 200).mapToObj(i -> "k" + i).toList(), i -> "S" + i % 3);
        assertThat(told).hasSize(2);
        // a change is its key (field part, 4-byte hash, entry key) with an 8-byte header and an 8-byte link
        assertThat(told.get(0)).isGreaterThan(100L * 2 * (8 + 4 + 8));
        assertThat(told.get(1)).isGreaterThan(2 * told.get(0) - 100L * 2); // the second's keys are a byte longer
        assertThat(keys(SEC, null)).hasSize(200); // applies them
        assertThat(told).hasSize(3).last().isEqualTo(0L);
    }

    @Test
    void aLaterBatchMovingEntriesWhoseAddIsHeldLeavesThemAtTheirNewPlace() {
        open(HeldChangesBudget.DEFAULT_LIMIT);
        List<String> all = IntStream.range(0, 50).mapToObj(i -> "k" + i).toList();
        batch(all, i -> "A");
        batch(all.subList(0, 25), i -> "B"); // the rows move (a new row per upsert) and the field changes
        batch(all.subList(0, 10), i -> "B"); // the rows move again, the field stays: a relink of the held add
        assertThat(store.indexes().holding()).isTrue();

        assertThat(keys(SEC, "A")).containsExactlyInAnyOrderElementsOf(all.subList(25, 50));
        assertThat(keys(SEC, "B")).containsExactlyInAnyOrderElementsOf(all.subList(0, 25));
        assertThat(keys(ACCOUNT, null)).hasSize(50);
        ConsistencyCheckTest.assertConsistent(region, "moved while held");
    }

    @Test
    void aLaterBatchRemovingEntriesWhoseAddIsHeldLeavesNothingOfThem() {
        open(HeldChangesBudget.DEFAULT_LIMIT);
        List<String> all = IntStream.range(0, 50).mapToObj(i -> "k" + i).toList();
        batch(all, i -> "A");
        GrowableBuffer out = new GrowableBuffer(1024);
        for (String key : all.subList(0, 20)) {
            EntryBatch.append(out, bytes(key), null);
        }
        store.applyBatch(new EntryBatch(out.array(), out.position(), 20), BatchMode.UPSERT);
        batch(all.subList(0, 5), i -> "C"); // and back, as new entries
        assertThat(store.indexes().holding()).isTrue();

        List<String> expected = new ArrayList<>(all.subList(20, 50));
        assertThat(keys(SEC, "A")).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(keys(SEC, "C")).containsExactlyInAnyOrderElementsOf(all.subList(0, 5));
        // an index item left pointing at a freed row would fail the check (links to rows no tree refers to)
        ConsistencyCheckTest.assertConsistent(region, "removed while held");
    }

    @Test
    void aSingleEntryWriteAppliesTheHeldChangesBeforeItsOwn() {
        open(HeldChangesBudget.DEFAULT_LIMIT);
        batch(List.of("k1", "k2"), i -> "A");
        assertThat(store.indexes().holding()).isTrue();
        byte[] k = bytes("k1");
        byte[] v = order("B", 1);
        store.put(k, 0, k.length, v, 0, v.length);
        assertThat(store.indexes().holding()).isFalse();

        assertThat(keys(SEC, "A")).containsExactly("k2");
        assertThat(keys(SEC, "B")).containsExactly("k1");
    }

    @Test
    void anIndexHoldingTheThresholdIsAppliedByTheBatchThatFillsIt() {
        open(HeldChangesBudget.DEFAULT_LIMIT);
        int n = HeldIndexChanges.THRESHOLD;
        batch(IntStream.range(0, n - 1).mapToObj(i -> "k" + i).toList(), i -> "A");
        assertThat(store.indexes().holding()).isTrue();
        batch(List.of("last"), i -> "A");
        assertThat(store.indexes().holding()).isFalse();
        assertThat(keys(SEC, "A")).hasSize(n);
    }

    @Test
    void aPartitionPastItsShareOfTheBudgetAppliesAtTheShareFloor() {
        open(4L << 20);
        for (int p = 1; p < 64; p++) { // 64 partitions of two indexes: a share of 64 KiB each
            region.createPartition(StoreJournal.NONE, List.of(SEC, ACCOUNT));
        }
        int n = HeldIndexChanges.SHARE_FROM;
        batch(IntStream.range(0, n - 1).mapToObj(i -> "k" + i).toList(), i -> "A");
        assertThat(store.indexes().holding()).as("below the floor, past the share").isTrue();
        batch(List.of("last"), i -> "A");
        assertThat(store.indexes().holding()).as("at the floor, past the share").isFalse();
        assertThat(region.heldIndexChangeBytes()).isZero();
        assertThat(keys(SEC, "A")).hasSize(n);
    }

    @Test
    void aPartitionWithinItsShareHoldsPastTheShareFloor() {
        open(4L << 20); // one partition: the whole budget is its share
        batch(IntStream.range(0, HeldIndexChanges.SHARE_FROM + 100).mapToObj(i -> "k" + i).toList(), i -> "A");
        assertThat(store.indexes().holding()).isTrue();
        assertThat(keys(SEC, "A")).hasSize(HeldIndexChanges.SHARE_FROM + 100);
    }

    @Test
    void aBatchIntoEmptyIndexesWithAKeyTwiceKeepsItsLastValue() {
        open(0); // nothing held: the batch's own pass builds the empty trees
        batch(List.of("k1", "k2", "k1", "k3"), i -> i == 0 ? "A" : "B");
        assertThat(keys(SEC, "A")).isEmpty();
        assertThat(keys(SEC, "B")).containsExactlyInAnyOrder("k1", "k2", "k3");
        assertThat(keys(ACCOUNT, null)).hasSize(3);
        ConsistencyCheckTest.assertConsistent(region, "a key twice in a batch into empty indexes");
    }

    @Test
    void aRegionWithoutBudgetHoldsNothing() {
        open(0);
        batch(List.of("k1", "k2"), i -> "A");
        assertThat(store.indexes().holding()).isFalse();
        assertThat(keys(SEC, "A")).containsExactlyInAnyOrder("k1", "k2");
    }

    // ---- helpers

    private void batch(List<String> keys, java.util.function.IntFunction<String> sec) {
        GrowableBuffer out = new GrowableBuffer(4096);
        for (int i = 0; i < keys.size(); i++) {
            EntryBatch.append(out, bytes(keys.get(i)), order(sec.apply(i), i));
        }
        store.applyBatch(new EntryBatch(out.array(), out.position(), keys.size()), BatchMode.UPSERT);
    }

    private byte[] order(String sec, long account) {
        return binary.builder("Order").setField("sec", sec).setField("account", account).build().toBytes();
    }

    /** The keys index {@code index} finds for {@code value} (null: all), through the partition's index scan. */
    private List<String> keys(IndexSpec index, String value) {
        byte[] bound = value == null ? null : enc(value);
        List<String> keys = new ArrayList<>();
        store.index().scan(index.id(), bound, true, bound, true, null, (ik, key, v) -> {
            keys.add(new String(key, StandardCharsets.UTF_8));
            return true;
        });
        return keys;
    }

    private byte[] enc(Object value) {
        GrowableBuffer out = new GrowableBuffer(16);
        binary.encode(value, out);
        return out.toByteArray();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
