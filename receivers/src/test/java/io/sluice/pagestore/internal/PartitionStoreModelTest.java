package io.sluice.pagestore.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
@ExtendWith(Seeds.class)
class PartitionStoreModelTest {

    @ParameterizedTest
    @ValueSource(ints = {1024, 4096, 16384})
    void singleRowOperationsMatchATreeMap(int pageSize) {
        long seed = Seeds.fresh();
        runModel(seed, pageSize, 40_000, 3000);
    }

    @Test
    void fixedSeedsMatchATreeMap() {
        for (long seed = 1; seed <= 3; seed++) {
            runModel(seed, 1024, 20_000, 800);
        }
    }

    private static void runModel(long seed, int pageSize, int ops, int keyRange) {
        StoreModel model = new StoreModel(seed, pageSize * 5);
        try (DataRegion region = new DataRegion(new DataRegionConfig(pageSize, 0, 256L << 20))) {
            PartitionStore store = region.createPartition();
            for (int op = 0; op < ops; op++) {
                byte[] key = model.key(keyRange);
                int kind = model.random.nextInt(100);
                String at = model.context() + ", op " + op;
                if (kind < 35) {
                    byte[] value = model.value();
                    boolean absent = store.put(key, 0, key.length, value, 0, value.length);
                    assertThat(absent).as(at).isEqualTo(model.map.put(key, value) == null);
                } else if (kind < 50) {
                    byte[] value = model.value();
                    boolean stored = store.putIfAbsent(key, 0, key.length, value, 0, value.length);
                    assertThat(stored).as(at).isEqualTo(model.map.putIfAbsent(key, value) == null);
                } else if (kind < 80) {
                    boolean removed = store.remove(key, 0, key.length);
                    assertThat(removed).as(at).isEqualTo(model.map.remove(key) != null);
                } else if (kind < 99) {
                    assertThat(store.get(key, 0, key.length)).as(at).isEqualTo(model.map.get(key));
                } else {
                    model.assertSame(store);
                }
                if (op % 5000 == 4999 && model.random.nextBoolean()) { // drain most of it: merges and page reuse
                    for (Map.Entry<byte[], byte[]> e : model.map.entrySet()) {
                        if (model.random.nextInt(10) < 9) {
                            assertThat(store.remove(e.getKey(), 0, e.getKey().length)).as(at).isTrue();
                        }
                    }
                    model.map.entrySet().removeIf(e -> store.get(e.getKey(), 0, e.getKey().length) == null);
                }
            }
            model.assertSame(store);
            ConsistencyCheckTest.assertConsistent(region, model.context());
            store.destroy();
            assertThat(region.usedPages()).as(model.context() + ": pages in use after destroy").isZero();
        }
    }
}
