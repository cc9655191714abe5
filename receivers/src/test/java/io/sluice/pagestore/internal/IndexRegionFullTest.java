package io.sluice.pagestore.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.DataRegionFullException;
import io.sluice.binary.BinaryObject;
import io.sluice.binary.internal.BinaryContext;
import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.pagestore.internal.index.IndexKeys;
import io.sluice.pagestore.internal.index.IndexSpec;
import io.sluice.protocol.internal.EntryBatch;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A region that fills up under indexed writes: a batch that fails part way leaves every index holding exactly
 * the entries the partition holds (or, if an index pass itself found no room, that index says it is incomplete),
 * and the pages stay consistent.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@ExtendWith(Seeds.class)
class IndexRegionFullTest {

    private static final List<IndexSpec> SPECS = List.of(new IndexSpec(1, List.of("sec")),
            new IndexSpec(2, List.of("account", "sec")));

    @Test
    void indexesFollowWhatAFailedBatchApplied() {
        long seed = Seeds.fresh();
        Random random = new Random(seed);
        BinaryContext binary = new BinaryContext();
        try (DataRegion region = new DataRegion(new DataRegionConfig(1024, 0, 384 * 1024), binary)) {
            PartitionStore store = region.createPartition(StoreJournal.NONE, SPECS);
            int failures = 0;
            for (int round = 0; round < 400 && failures < 5; round++) {
                GrowableBuffer out = new GrowableBuffer(8192);
                int n = 1 + random.nextInt(200);
                for (int i = 0; i < n; i++) {
                    byte[] key = ("k" + random.nextInt(3000)).getBytes();
                    byte[] value = random.nextInt(10) == 0 ? null : binary.builder("Order")
                            .setField("sec", "S" + random.nextInt(20)).setField("account", (long) random.nextInt(50))
                            .setField("pad", "p".repeat(random.nextInt(random.nextInt(8) == 0 ? 2000 : 60))).build()
                            .toBytes();
                    EntryBatch.append(out, key, value);
                }
                try {
                    store.applyBatch(new EntryBatch(out.array(), out.position(), n),
                            random.nextBoolean() ? BatchMode.UPSERT : BatchMode.INSERT_IF_ABSENT);
                } catch (BatchApplyException e) {
                    failures++;
                } catch (DataRegionFullException e) {
                    failures++;
                }
                for (IndexSpec spec : SPECS) {
                    assertIndexMatchesEntries(store, binary, spec, "seed " + seed + ", round " + round);
                }
            }
            assertThat(failures).as("seed " + seed + ": the region filled up").isPositive();
            ConsistencyCheckTest.assertConsistent(region, "seed " + seed);
        }
    }

    private static void assertIndexMatchesEntries(PartitionStore store, BinaryContext binary, IndexSpec spec,
                                                  String at) {
        List<String> expected = new ArrayList<>();
        java.util.TreeMap<byte[], byte[]> index = new java.util.TreeMap<>(Arrays::compareUnsigned);
        StoreCursor cursor = store.cursor();
        while (cursor.next()) {
            BinaryObject o = (BinaryObject) binary.decode(cursor.value(), 0, cursor.value().length, true);
            GrowableBuffer ik = new GrowableBuffer(32);
            for (String f : spec.fields()) {
                binary.encode(o.field(f), ik);
            }
            index.put(IndexKeys.indexKey(ik.toByteArray(), cursor.key()), cursor.key());
        }
        index.forEach((ik, key) -> expected.add(IndexModelTest.hex(ik)));
        List<String> actual = new ArrayList<>();
        try {
            store.index().scan(spec.id(), null, true, null, true, null, (ik, key, value) -> actual.add(IndexModelTest.hex(ik)));
        } catch (IllegalStateException e) {
            assertThat(e).as(at).hasMessageContaining("incomplete");
            return;
        }
        assertThat(actual).as(at + ", index " + spec).containsExactlyElementsOf(expected);
    }
}
