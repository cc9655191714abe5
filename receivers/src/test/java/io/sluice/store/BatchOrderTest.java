package io.sluice.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.protocol.EntryBatch;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class BatchOrderTest {

    @Test
    void sortsEntryIndexesByUnsignedKeyBytesThenLengthThenPosition() {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        BatchOrder order = new BatchOrder(); // reused across batches, as in a partition
        for (int round = 0; round < 300; round++) {
            int n = 1 + random.nextInt(round % 10 == 0 ? 3000 : 200);
            StoreModel keys = new StoreModel(random.nextLong(), 0);
            List<byte[]> batchKeys = new ArrayList<>();
            GrowableBuffer out = new GrowableBuffer(64);
            for (int i = 0; i < n; i++) {
                byte[] key = random.nextInt(8) == 0 && !batchKeys.isEmpty()
                        ? batchKeys.get(random.nextInt(batchKeys.size())) // duplicates
                        : keys.key(1 + random.nextInt(5000));
                if (random.nextInt(20) == 0) {
                    key = Arrays.copyOf(key, key.length + random.nextInt(3)); // zero-padded variants
                }
                batchKeys.add(key);
                EntryBatch.append(out, key, random.nextBoolean() ? null : new byte[random.nextInt(4)]);
            }
            int[] sorted = order.sort(new EntryBatch(out.array(), out.position(), n));
            for (int i = 1; i < n; i++) {
                int c = Arrays.compareUnsigned(batchKeys.get(sorted[i - 1]), batchKeys.get(sorted[i]));
                assertThat(c < 0 || (c == 0 && sorted[i - 1] < sorted[i]))
                        .as("seed %d, round %d, position %d: %s then %s", seed, round, i,
                                Arrays.toString(batchKeys.get(sorted[i - 1])), Arrays.toString(batchKeys.get(sorted[i])))
                        .isTrue();
            }
            assertThat(Arrays.stream(Arrays.copyOf(sorted, n)).sorted().toArray())
                    .as("seed %d: a permutation", seed).isEqualTo(java.util.stream.IntStream.range(0, n).toArray());
        }
    }
}
