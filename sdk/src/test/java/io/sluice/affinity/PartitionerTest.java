package io.sluice.affinity;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class PartitionerTest {

    @Test
    void hashIsMurmur3X86With32BitsAndSeedZero() {
        // Reference values of MurmurHash3_x86_32 with seed 0.
        assertThat(Partitioner.hash(new byte[0], 0, 0)).isEqualTo(0);
        assertThat(Partitioner.hash(bytes("hello"), 0, 5)).isEqualTo(0x248bfa47);
        assertThat(Partitioner.hash(bytes("The quick brown fox jumps over the lazy dog"), 0, 43))
                .isEqualTo(0x2e4ff723);
    }

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

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
