package io.sluice.pagestore.internal;

import io.sluice.DataRegionFullException;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
@ExtendWith(Seeds.class)
class DataRegionFullTest {

    private static byte[] key(int i) {
        return ByteBuffer.allocate(5).put((byte) 1).putInt(i).array();
    }

    private static byte[] value(int i, int size) {
        byte[] v = new byte[size];
        new Random(i).nextBytes(v);
        return v;
    }

    @Test
    void aFullRegionRefusesWritesAndKeepsEveryStoredRow() {
        long seed = Seeds.fresh();
        Random random = new Random(seed);
        try (DataRegion region = new DataRegion(new DataRegionConfig(1024, 0, 256 * 1024))) {
            PartitionStore store = region.createPartition();
            List<Integer> sizes = new ArrayList<>();
            int i = 0;
            DataRegionFullException full = null;
            while (full == null) {
                int size = random.nextInt(10) == 0 ? random.nextInt(5000) : random.nextInt(300);
                byte[] k = key(i);
                byte[] v = value(i, size);
                try {
                    assertThat(store.put(k, 0, k.length, v, 0, v.length)).isTrue();
                    sizes.add(size);
                    i++;
                } catch (DataRegionFullException e) {
                    full = e;
                }
            }
            assertThat(full.getMessage()).contains("262144 bytes").contains("NodeConfig.dataRegionMaxSize");
            assertThat(region.allocatedPages()).isEqualTo(256);
            assertThat(store.size()).isEqualTo(sizes.size());
            for (int j = 0; j < sizes.size(); j++) {
                byte[] k = key(j);
                assertThat(store.get(k, 0, k.length)).as("seed %d, row %d", seed, j).isEqualTo(value(j, sizes.get(j)));
            }
            byte[] big = value(-1, 20_000);
            byte[] k = key(-1);
            assertThatThrownBy(() -> store.put(k, 0, k.length, big, 0, big.length)).isInstanceOf(DataRegionFullException.class);
            assertThat(store.get(k, 0, k.length)).isNull();
            // removing rows makes room again
            for (int j = 0; j < sizes.size(); j += 2) {
                byte[] kj = key(j);
                assertThat(store.remove(kj, 0, kj.length)).isTrue();
            }
            store.put(k, 0, k.length, big, 0, big.length);
            assertThat(store.get(k, 0, k.length)).isEqualTo(big);
            for (int j = 1; j < sizes.size(); j += 2) {
                byte[] kj = key(j);
                assertThat(store.get(kj, 0, kj.length)).as("seed %d, row %d", seed, j).isEqualTo(value(j, sizes.get(j)));
            }
        }
    }

    @Test
    void aFullLoadRemovedReturnsEveryPageForReuse() {
        try (DataRegion region = new DataRegion(new DataRegionConfig(4096, 0, 64L << 20))) {
            PartitionStore a = region.createPartition();
            PartitionStore b = region.createPartition();
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < 20_000; i++) {
                    byte[] k = key(i);
                    byte[] v = value(i, i % 50 == 0 ? 9000 : 100);
                    (i % 2 == 0 ? a : b).put(k, 0, k.length, v, 0, v.length);
                }
                long allocated = region.allocatedPages();
                for (int i = 0; i < 20_000; i++) {
                    byte[] k = key(i);
                    assertThat((i % 2 == 0 ? a : b).remove(k, 0, k.length)).isTrue();
                }
                assertThat(region.usedPages()).as("round %d", round).isZero();
                assertThat(region.allocatedPages()).as("round %d: pages are reused, not allocated again", round)
                        .isEqualTo(allocated);
            }
        }
    }

    @Test
    void rowsOf64MiBRoundTrip() {
        try (DataRegion region = new DataRegion(new DataRegionConfig(16384, 0, 200L << 20))) {
            PartitionStore store = region.createPartition();
            byte[] v = value(7, 64 << 20);
            byte[] k = key(7);
            store.put(k, 0, k.length, v, 0, v.length);
            assertThat(store.get(k, 0, k.length)).isEqualTo(v);
            byte[] small = value(8, 10);
            store.put(k, 0, k.length, small, 0, small.length);
            assertThat(store.get(k, 0, k.length)).isEqualTo(small);
            store.remove(k, 0, k.length);
            assertThat(region.usedPages()).isZero();
        }
    }
}
