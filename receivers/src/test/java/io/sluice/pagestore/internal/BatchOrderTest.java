package io.sluice.pagestore.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.protocol.internal.EntryBatch;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(Seeds.class)
class BatchOrderTest {

    @Test
    void sortsEntryIndexesByUnsignedKeyBytesThenLengthThenPosition() {
        long seed = Seeds.fresh();
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

    @Test
    void keyPrefixesAreTheZeroPaddedFirstTwelveBytesForEveryKeyLength() {
        long seed = Seeds.fresh();
        Random random = new Random(seed);
        for (int length = 0; length <= 20; length++) {
            byte[] data = new byte[length + 6];
            random.nextBytes(data);
            long high = 0;
            int low = 0;
            for (int i = 0; i < 12; i++) {
                int b = i < length ? data[3 + i] & 0xFF : 0;
                if (i < 8) {
                    high = high << 8 | b;
                } else {
                    low = low << 8 | b;
                }
            }
            assertThat(io.sluice.pagestore.internal.tree.TreePageIO.prefixHigh(data, 3, length))
                    .as("seed %d, key length %d", seed, length).isEqualTo(high);
            assertThat(io.sluice.pagestore.internal.tree.TreePageIO.prefixLow(data, 3, length))
                    .as("seed %d, key length %d", seed, length).isEqualTo(low);
        }
    }
}
