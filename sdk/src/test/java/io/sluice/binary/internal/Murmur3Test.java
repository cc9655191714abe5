package io.sluice.binary.internal;

import io.sluice.affinity.Partitioner;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class Murmur3Test {

    @Test
    void objectHashesUseTheSameFunctionAsPartitioning() {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        for (int i = 0; i < 2000; i++) {
            byte[] data = new byte[random.nextInt(64)];
            random.nextBytes(data);
            int offset = data.length == 0 ? 0 : random.nextInt(data.length);
            int length = data.length - offset;
            assertThat(Murmur3.hash(data, offset, length)).as("seed %d", seed)
                    .isEqualTo(Partitioner.hash(data, offset, length));
        }
    }

    @Test
    void idsMatchTheDocumentedValues() {
        assertThat(Murmur3.ofName("Point")).isEqualTo(0xbca71842);
        assertThat(Murmur3.ofName("label")).isEqualTo(0x8c7dd24d);
        assertThat(Murmur3.ofInts(new int[]{0x3e9a9b1b, 0x477d9216, 0x8c7dd24d}, 3)).isEqualTo(0x1c6c8455);
        byte[] ids = {0x3e, (byte) 0x9a, (byte) 0x9b, 0x1b};
        assertThat(Murmur3.ofInts(new int[]{0x3e9a9b1b}, 1)).isEqualTo(Murmur3.hash(ids, 0, 4));
        assertThat(Murmur3.ofName("")).isEqualTo(Murmur3.hash("".getBytes(StandardCharsets.UTF_8), 0, 0));
    }
}
