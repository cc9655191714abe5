package io.sluice.pagestore.internal;

import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.protocol.internal.EntryBatch;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A partition's skip-store view is the same partition, and its writes reach the journal marked as skipping the store. */
class SkipStoreViewTest {

    /** Records each write as "kind key skipStore". */
    private static final class RecordingJournal implements StoreJournal {
        final List<String> seen = new ArrayList<>();
        long changes;

        @Override
        public void batch(EntryBatch batch, BatchMode mode, boolean partial, boolean skipStore) {
            changes++;
            seen.add("batch " + batch.size() + " " + skipStore);
        }

        @Override
        public void entry(byte[] key, int keyOffset, int keyLength, byte[] value, int valueOffset, int valueLength,
                          BatchMode mode, boolean skipStore) {
            changes++;
            seen.add((value == null ? "remove " : "put ") + new String(key, keyOffset, keyLength,
                    StandardCharsets.UTF_8) + " " + skipStore);
        }

        @Override
        public long changes() {
            return changes;
        }

        @Override
        public void checkWritable() {
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static EntryBatch batch(String... kv) {
        GrowableBuffer out = new GrowableBuffer(64);
        for (int i = 0; i < kv.length; i += 2) {
            EntryBatch.append(out, bytes(kv[i]), bytes(kv[i + 1]));
        }
        return new EntryBatch(out.array(), out.position(), kv.length / 2);
    }

    @Test
    void writesThroughTheViewAreMarkedAndSharedWithThePartition() {
        RecordingJournal journal = new RecordingJournal();
        try (DataRegion region = new DataRegion(new DataRegionConfig(4096, 0, 16L << 20))) {
            PartitionStore store = region.createPartition(journal);
            PartitionStore view = store.skippingStore();
            assertThat(store.skippingStore()).isSameAs(view);
            assertThat(view.skippingStore()).isSameAs(view);

            store.put(bytes("a"), 0, 1, bytes("1"), 0, 1);
            view.put(bytes("b"), 0, 1, bytes("2"), 0, 1);
            view.putIfAbsent(bytes("c"), 0, 1, bytes("3"), 0, 1);
            view.update(entry -> {
                entry.at(bytes("a"), 0, 1);
                entry.put(bytes("9"), 0, 1);
            });
            view.remove(bytes("c"), 0, 1);
            store.remove(bytes("b"), 0, 1);
            view.applyBatch(batch("d", "4", "e", "5"), BatchMode.INSERT_IF_ABSENT);
            store.applyBatch(batch("f", "6"), BatchMode.UPSERT);

            assertThat(journal.seen).containsExactly("put a false", "put b true", "put c true", "put a true",
                    "remove c true", "remove b false", "batch 2 true", "batch 1 false");
            assertThat(store.get(bytes("a"), 0, 1)).containsExactly(bytes("9"));
            assertThat(view.get(bytes("a"), 0, 1)).containsExactly(bytes("9"));
            assertThat(view.size()).isEqualTo(store.size()).isEqualTo(4);

            view.destroy("the cache was destroyed");
            assertThatThrownBy(() -> store.get(bytes("a"), 0, 1)).isInstanceOf(IllegalStateException.class)
                    .hasMessage("the cache was destroyed");
        }
    }
}
