package io.sluice.affinity.internal;

import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class PartitionerTest {

    @Test
    void partitionDependsOnlyOnTheKeyBytesNotOnWhereTheyLie() {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        for (int i = 0; i < 1000; i++) {
            byte[] key = new byte[1 + random.nextInt(40)];
            random.nextBytes(key);
            byte[] padded = new byte[key.length + 13];
            System.arraycopy(key, 0, padded, 7, key.length);
            assertThat(Partitioner.partition(padded, 7, key.length, 1024)).as("seed %d", seed)
                    .isEqualTo(Partitioner.partition(key, 0, key.length, 1024))
                    .isBetween(0, 1023);
        }
    }

    @Test
    void sequentialKeysSpreadOverAllPartitions() {
        int[] counts = new int[64];
        byte[] key = new byte[9];
        for (long k = 0; k < 64_000; k++) {
            key[0] = 1;
            for (int b = 0; b < 8; b++) {
                key[1 + b] = (byte) (k >>> (56 - 8 * b));
            }
            counts[Partitioner.partition(key, 0, key.length, 64)]++;
        }
        for (int c : counts) {
            assertThat(c).isBetween(800, 1200);
        }
    }
}
