package io.sluice.pagestore.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.binary.internal.BinaryContext;
import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.pagestore.internal.index.IndexSpec;
import io.sluice.protocol.internal.EntryBatch;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Index keys that fit an index tree's item are held whole in it with the entry's row link, and write no index row:
 * the same StockOrder-like batches (loads, overwrites that move rows, removals) into a region without indexes, one
 * with indexes whose keys fit (short strings, 20 and 22 bytes with the key), and one with an index whose keys don't
 * (a 40-character string): the second holds exactly as many data pages as the first, the third more (its index
 * rows); each region stays consistent (its trees checked item by item, every data page's live rows owned once).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class IndexKeysInItemsTest {

    @Test
    void indexKeysThatFitTheirItemsWriteNoRowsAndLongerOnesDo() {
        BinaryContext binary = new BinaryContext();
        try (DataRegion plainRegion = region(binary); DataRegion shortRegion = region(binary);
             DataRegion longRegion = region(binary)) {
            PartitionStore plain = plainRegion.createPartition();
            PartitionStore shortKeys = shortRegion.createPartition(StoreJournal.NONE,
                    List.of(new IndexSpec(1, List.of("secCode")), new IndexSpec(2, List.of("account"))));
            PartitionStore longKeys = longRegion.createPartition(StoreJournal.NONE,
                    List.of(new IndexSpec(1, List.of("note"))));
            for (int round = 0; round < 3; round++) {
                for (int from = 0; from < 20_000; from += 500) {
                    EntryBatch batch = batch(binary, from, 500, round);
                    for (PartitionStore p : List.of(plain, shortKeys, longKeys)) {
                        p.applyBatch(batch, BatchMode.UPSERT);
                    }
                }
                ConsistencyReport none = ConsistencyCheckTest.assertConsistent(plainRegion, "round " + round);
                ConsistencyReport fit = ConsistencyCheckTest.assertConsistent(shortRegion, "round " + round);
                ConsistencyReport rows = ConsistencyCheckTest.assertConsistent(longRegion, "round " + round);
                assertThat(fit.dataPages()).as("round %d: index keys in items add no data pages", round)
                        .isEqualTo(none.dataPages());
                assertThat(fit.treePages()).as("round %d", round).isGreaterThan(none.treePages());
                assertThat(rows.dataPages()).as("round %d: long index keys have index rows", round)
                        .isGreaterThan(none.dataPages());
            }
            // removals: every entry of the short-keyed partition gone, its indexes empty, nothing left behind
            for (int i = 0; i < 20_000; i++) {
                byte[] k = key(i);
                assertThat(shortKeys.remove(k, 0, k.length)).isTrue();
            }
            assertThat(shortKeys.size()).isZero();
            ConsistencyCheckTest.assertConsistent(shortRegion, "after removing every entry");
            shortKeys.destroy();
            assertThat(shortRegion.usedPages()).as("pages in use after destroy").isZero();
        }
    }

    private static DataRegion region(BinaryContext binary) {
        return new DataRegion(new DataRegionConfig(4096, 0, 64L << 20), binary);
    }

    /** Entries from {@code from}; each round's values a different length, so overwrites move rows. */
    private static EntryBatch batch(BinaryContext binary, int from, int n, int round) {
        GrowableBuffer out = new GrowableBuffer(1 << 16);
        for (int i = from; i < from + n; i++) {
            byte[] value = binary.builder("StockOrder")
                    .setField("secCode", "SEC" + (i * 31 + round) % 40)
                    .setField("account", "L01-" + (i * 17 + round) % 1000)
                    .setField("note", "n".repeat(40) + i % 97)
                    .setField("pad", "p".repeat(round * 30))
                    .build().toBytes();
            EntryBatch.append(out, key(i), value);
        }
        return new EntryBatch(out.array(), out.position(), n);
    }

    private static byte[] key(int i) {
        return ByteBuffer.allocate(9).put((byte) 5).putLong(i * 7919L).array();
    }
}
