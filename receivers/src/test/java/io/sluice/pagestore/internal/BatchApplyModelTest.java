package io.sluice.pagestore.internal;

import io.sluice.DataRegionFullException;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.protocol.internal.EntryBatch;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 90, unit = TimeUnit.SECONDS)
@ExtendWith(Seeds.class)
class BatchApplyModelTest {

    /** Applies a batch to the model with the store's rules; returns the expected result. */
    private static BatchResult applyToModel(StoreModel model, List<byte[][]> entries, BatchMode mode) {
        Map<ByteBuffer, Integer> last = new HashMap<>();
        for (int i = 0; i < entries.size(); i++) {
            last.put(ByteBuffer.wrap(entries.get(i)[0]), i);
        }
        int inserted = 0;
        int updated = 0;
        int skipped = 0;
        int removed = 0;
        for (int i = 0; i < entries.size(); i++) {
            byte[] key = entries.get(i)[0];
            byte[] value = entries.get(i)[1];
            if (last.get(ByteBuffer.wrap(key)) != i) {
                skipped++;
            } else if (value == null) {
                if (model.map.remove(key) != null) {
                    removed++;
                } else {
                    skipped++;
                }
            } else if (!model.map.containsKey(key)) {
                model.map.put(key, value);
                inserted++;
            } else if (mode == BatchMode.UPSERT) {
                model.map.put(key, value);
                updated++;
            } else {
                skipped++;
            }
        }
        return new BatchResult(inserted, updated, skipped, removed);
    }

    private static EntryBatch encode(List<byte[][]> entries) {
        GrowableBuffer out = new GrowableBuffer(1024);
        for (byte[][] e : entries) {
            EntryBatch.append(out, e[0], e[1]);
        }
        return new EntryBatch(out.array(), out.position(), entries.size());
    }

    private static List<byte[][]> randomBatch(StoreModel model, int size, int keyRange) {
        List<byte[][]> entries = new ArrayList<>();
        List<byte[]> present = new ArrayList<>(model.map.keySet());
        for (int i = 0; i < size; i++) {
            byte[] key;
            int pick = model.random.nextInt(10);
            if (pick == 0 && !entries.isEmpty()) {
                key = entries.get(model.random.nextInt(entries.size()))[0].clone(); // a duplicate
            } else if (pick < 3 && !present.isEmpty()) {
                key = present.get(model.random.nextInt(present.size())); // present key
            } else {
                key = model.key(keyRange);
            }
            byte[] value = model.random.nextInt(6) == 0 ? null : model.value();
            entries.add(new byte[][] {key, value});
        }
        return entries;
    }

    @Test
    void batchesAndSingleRowsMatchATreeMap() {
        long seed = Seeds.fresh();
        for (boolean rowByRow : new boolean[] {true, false}) {
            StoreModel model = new StoreModel(seed, 9000);
            try (DataRegion region = new DataRegion(new DataRegionConfig(4096, 0, 512L << 20))) {
                PartitionStore store = region.createPartition();
                for (int round = 0; round < 60; round++) {
                    String at = model.context() + ", round " + round + (rowByRow ? " (row by row)" : " (batch)");
                    int size = round % 10 == 9 ? 1 + model.random.nextInt(10_000) : 1 + model.random.nextInt(300);
                    List<byte[][]> entries = randomBatch(model, size, 20_000);
                    BatchMode mode = model.random.nextBoolean() ? BatchMode.UPSERT : BatchMode.INSERT_IF_ABSENT;
                    BatchResult expected = applyToModel(model, entries, mode);
                    EntryBatch batch = encode(entries);
                    BatchResult actual = rowByRow ? RowByRowBaseline.apply(store, batch, mode) : store.applyBatch(batch, mode);
                    assertThat(actual).as(at).isEqualTo(expected);
                    assertThat(actual.entries()).as(at).isEqualTo(size);
                    for (int i = 0; i < 30; i++) { // single-row operations in between
                        byte[] key = model.key(20_000);
                        byte[] value = model.value();
                        if (model.random.nextBoolean()) {
                            assertThat(store.put(key, 0, key.length, value, 0, value.length))
                                    .as(at).isEqualTo(model.map.put(key, value) == null);
                        } else {
                            assertThat(store.remove(key, 0, key.length)).as(at).isEqualTo(model.map.remove(key) != null);
                        }
                    }
                    if (round % 10 == 0) {
                        model.assertSame(store);
                        ConsistencyCheckTest.assertConsistent(region, at);
                    }
                }
                model.assertSame(store);
                store.destroy();
                assertThat(region.usedPages()).as(model.context()).isZero();
            }
        }
    }

    @Test
    void aBatchThatFillsTheRegionMidwayLeavesAConsistentPartition() {
        long seed = Seeds.fresh();
        for (boolean rowByRow : new boolean[] {true, false}) {
            StoreModel model = new StoreModel(seed, 3000);
            try (DataRegion region = new DataRegion(new DataRegionConfig(1024, 0, 512 * 1024))) {
                PartitionStore store = region.createPartition();
                List<byte[][]> first = randomBatch(model, 100, 1_000_000);
                BatchResult expected = applyToModel(model, first, BatchMode.UPSERT);
                assertThat(store.applyBatch(encode(first), BatchMode.UPSERT)).isEqualTo(expected);
                List<byte[][]> big = new ArrayList<>();
                for (int i = 0; i < 3000; i++) {
                    byte[] key = ByteBuffer.allocate(9).put((byte) 2).putLong(i).array();
                    byte[] value = new byte[300];
                    model.random.nextBytes(value);
                    big.add(new byte[][] {key, value});
                }
                EntryBatch batch = encode(big);
                String at = model.context() + (rowByRow ? " (row by row)" : " (batch)");
                assertThatThrownBy(() -> {
                    if (rowByRow) {
                        RowByRowBaseline.apply(store, batch, BatchMode.INSERT_IF_ABSENT);
                    } else {
                        store.applyBatch(batch, BatchMode.INSERT_IF_ABSENT);
                    }
                }).as(at).isInstanceOfSatisfying(BatchApplyException.class, e -> {
                    assertThat(e.getCause()).isInstanceOf(DataRegionFullException.class);
                    assertThat(e.applied() + e.notApplied()).isEqualTo(3000);
                    assertThat(e.applied()).isPositive();
                    // exactly the applied entries are in: the first ones in key order (the keys ascend)
                    for (int i = 0; i < e.applied(); i++) {
                        model.map.put(big.get(i)[0], big.get(i)[1]);
                    }
                });
                model.assertSame(store);
                ConsistencyCheckTest.assertConsistent(region, at + ", after the batch that filled the region");
                // and the region works again once room is made
                for (byte[] key : new ArrayList<>(model.map.keySet())) {
                    store.remove(key, 0, key.length);
                }
                model.map.clear();
                List<byte[][]> again = randomBatch(model, 200, 1_000_000);
                BatchResult expectedAgain = applyToModel(model, again, BatchMode.UPSERT);
                assertThat(store.applyBatch(encode(again), BatchMode.UPSERT)).as(at).isEqualTo(expectedAgain);
                model.assertSame(store);
                ConsistencyCheckTest.assertConsistent(region, at);
            }
        }
    }
}
