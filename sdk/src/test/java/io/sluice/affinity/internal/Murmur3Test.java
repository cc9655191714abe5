package io.sluice.affinity.internal;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class Murmur3Test {

    @Test
    void hashIsMurmur3X86With32BitsAndSeedZero() {
        // Reference values of MurmurHash3_x86_32 with seed 0.
        assertThat(Murmur3.hash(new byte[0], 0, 0)).isEqualTo(0);
        assertThat(Murmur3.hash(bytes("hello"), 0, 5)).isEqualTo(0x248bfa47);
        assertThat(Murmur3.hash(bytes("The quick brown fox jumps over the lazy dog"), 0, 43)).isEqualTo(0x2e4ff723);
    }

    @Test
    void theBlockReadingHashAgreesWithTheTextbookByteAtATimeOne() {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        for (int i = 0; i < 2000; i++) {
            byte[] data = new byte[random.nextInt(64)];
            random.nextBytes(data);
            int offset = data.length == 0 ? 0 : random.nextInt(data.length);
            int length = data.length - offset;
            assertThat(Murmur3.hash(data, offset, length)).as("seed %d", seed)
                    .isEqualTo(reference(data, offset, length));
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

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** MurmurHash3_x86_32, seed 0, as its reference code reads it: byte by byte. */
    @SuppressWarnings("fallthrough")
    private static int reference(byte[] data, int offset, int length) {
        int h = 0;
        int end = offset + (length & ~3);
        for (int i = offset; i < end; i += 4) {
            int k = (data[i] & 0xff) | (data[i + 1] & 0xff) << 8 | (data[i + 2] & 0xff) << 16 | data[i + 3] << 24;
            h ^= Integer.rotateLeft(k * 0xcc9e2d51, 15) * 0x1b873593;
            h = Integer.rotateLeft(h, 13) * 5 + 0xe6546b64;
        }
        int k = 0;
        switch (length & 3) {
            case 3:
                k ^= (data[end + 2] & 0xff) << 16;
                // fall through
            case 2:
                k ^= (data[end + 1] & 0xff) << 8;
                // fall through
            case 1:
                k ^= data[end] & 0xff;
                h ^= Integer.rotateLeft(k * 0xcc9e2d51, 15) * 0x1b873593;
                break;
            default:
                break;
        }
        h ^= length;
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        return h;
    }
}
