package io.sluice.binary;

import io.sluice.binary.internal.BinaryContext;
import io.sluice.binary.internal.GrowableBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

class CorruptionTest {

    private final BinaryContext binary = new BinaryContext();

    private byte[] encode(Object v) {
        GrowableBuffer out = new GrowableBuffer(16);
        binary.encode(v, out);
        return out.toByteArray();
    }

    private BinaryObject sample() {
        BinaryObject inner = binary.builder("Inner").setField("x", 1).setField("s", "in").build();
        return binary.builder("Outer").setField("id", 42L).setField("name", "order\u0000\u20ac")
                .setField("inner", inner).setField("list", List.of(1L, "a", inner))
                .setField("when", Instant.ofEpochSecond(1_700_000_000L, 5)).build();
    }

    private Object decode(byte[] b) {
        return binary.decode(b, 0, b.length, true);
    }

    @Test
    void aTruncatedObjectSaysWhatIsMissingAndWhere() {
        byte[] b = sample().toBytes();
        assertThatThrownBy(() -> binary.decode(b, 0, b.length - 1, true)).isInstanceOf(BinaryFormatException.class)
                .hasMessageContaining("object length " + b.length).hasMessageContaining("at offset 0");
        assertThatThrownBy(() -> binary.decode(b, 0, 10, true)).isInstanceOf(BinaryFormatException.class)
                .hasMessageContaining("header needs at least 11 bytes but 10 remain");
        byte[] longer = Arrays.copyOf(b, b.length + 3);
        assertThatThrownBy(() -> decode(longer)).isInstanceOf(BinaryFormatException.class)
                .hasMessageContaining("ends at offset " + b.length);
        byte[] key = encode(5L);
        assertThatThrownBy(() -> binary.decode(key, 0, 5, true)).isInstanceOf(BinaryFormatException.class)
                .hasMessageContaining("8 bytes needed but 4 remain at offset 1");
        assertThatThrownBy(() -> binary.decode(key, 0, 0, true)).isInstanceOf(BinaryFormatException.class);
    }

    @Test
    void anUnknownTagIsNamedWithItsOffset() {
        byte[] list = encode(List.of(1L, 2L));
        list[1 + 4 + 9] = 0x7e;
        assertThatThrownBy(() -> decode(list)).isInstanceOf(BinaryFormatException.class)
                .hasMessage("unknown tag 0x7e at offset 14");
    }

    @Test
    void aFooterOutsideTheObjectOrAnUnknownSchemaOrTypeIsRefused() {
        byte[] b = sample().toBytes();
        assertThat(b[1]).as("a small object has 1-byte offsets (version 2, size code 0)").isEqualTo((byte) 0x20);
        int n = 5;
        byte[] shortLength = b.clone();
        shortLength[10] = (byte) (11 + n - 1);
        assertThatThrownBy(() -> binary.decode(shortLength, 0, 11 + n - 1, true))
                .isInstanceOf(BinaryFormatException.class)
                .hasMessageContaining("too short for its header and the 5 footer offsets of schema");
        byte[] schema = b.clone();
        putInt(schema, 6, 12345);
        assertThatThrownBy(() -> decode(schema)).isInstanceOf(BinaryFormatException.class)
                .hasMessageContaining("unknown schema id 12345 of type 'Outer'");
        byte[] type = b.clone();
        putInt(type, 2, 777);
        assertThatThrownBy(() -> decode(type)).isInstanceOf(BinaryFormatException.class)
                .hasMessageContaining("unknown type id 777");
        byte[] offset = b.clone();
        int footerAt = b.length - n;
        offset[footerAt + 1] = 3;
        assertThatThrownBy(() -> decode(offset)).isInstanceOf(BinaryFormatException.class)
                .hasMessageContaining("field 'name' offset 3").hasMessageContaining("at offset " + (footerAt + 1));
        byte[] beyond = b.clone();
        beyond[footerAt + n - 1] = (byte) (footerAt + 2);
        assertThatThrownBy(() -> decode(beyond)).isInstanceOf(BinaryFormatException.class)
                .hasMessageContaining("before the footer (" + footerAt + ")");
    }

    @Test
    void aVersion1ObjectOrUnknownFlagsAreRefusedNamingTheVersion() {
        byte[] b = sample().toBytes();
        byte[] v1 = b.clone();
        v1[1] = 0x01;
        assertThatThrownBy(() -> decode(v1)).isInstanceOf(BinaryFormatException.class)
                .hasMessageContaining("object format version 0 is not the supported 2")
                .hasMessageContaining("version 1 objects are not readable");
        byte[] flags = b.clone();
        flags[1] = 0x24;
        assertThatThrownBy(() -> decode(flags)).isInstanceOf(BinaryFormatException.class)
                .hasMessageContaining("object flags 0x04 are not valid");
        byte[] size = b.clone();
        size[1] = 0x23;
        assertThatThrownBy(() -> decode(size)).isInstanceOf(BinaryFormatException.class)
                .hasMessageContaining("object flags 0x03 are not valid");
    }

    @Test
    void hugeCountsAndUnterminatedStringsAreRefusedWithoutAllocating() {
        byte[] list = encode(List.of(1L));
        putInt(list, 1, Integer.MAX_VALUE);
        assertThatThrownBy(() -> decode(list)).isInstanceOf(BinaryFormatException.class)
                .hasMessageContaining("count 2147483647");
        byte[] negative = encode(new long[]{1, 2});
        putInt(negative, 1, -2);
        assertThatThrownBy(() -> decode(negative)).isInstanceOf(BinaryFormatException.class)
                .hasMessageContaining("count -2");
        byte[] s = encode("abc");
        assertThatThrownBy(() -> binary.decode(s, 0, s.length - 1, true)).isInstanceOf(BinaryFormatException.class)
                .hasMessage("string has no terminator at offset 0");
    }

    /** A BinaryObject implemented outside Sluice, whose bytes the builder must not trust. */
    private static BinaryObject foreign(byte[] bytes) {
        return new BinaryObject() {
            @Override
            public <T> T field(String name) {
                return null;
            }

            @Override
            public boolean hasField(String name) {
                return false;
            }

            @Override
            public io.sluice.binary.BinaryType type() {
                return null;
            }

            @Override
            public io.sluice.binary.BinaryObjectBuilder toBuilder() {
                throw new UnsupportedOperationException();
            }

            @Override
            public <T> T deserialize(Class<T> type) {
                throw new UnsupportedOperationException();
            }

            @Override
            public byte[] toBytes() {
                return bytes;
            }
        };
    }

    @Test
    void aBuilderRefusesANestedObjectWhoseBytesAreBroken() {
        byte[] good = sample().toBytes();
        io.sluice.binary.BinaryObjectBuilder b = binary.builder("Holder").setField("id", 1L);

        assertThatThrownBy(() -> b.setField("nested", foreign(new byte[0])))
                .isInstanceOf(BinaryFormatException.class).hasMessageContaining("gave no bytes from toBytes()");
        assertThatThrownBy(() -> b.setField("nested", foreign(Arrays.copyOf(good, good.length - 2))))
                .isInstanceOf(BinaryFormatException.class).hasMessageContaining("gave malformed bytes");
        assertThatThrownBy(() -> b.setField("nested", foreign(encode(5L))))
                .isInstanceOf(BinaryFormatException.class).hasMessageContaining("tag 0x06");
        byte[] trailing = Arrays.copyOf(good, good.length + 1);
        assertThatThrownBy(() -> b.setField("nested", foreign(trailing)))
                .isInstanceOf(BinaryFormatException.class).hasMessageContaining("gave malformed bytes");

        BinaryObject built = b.setField("nested", foreign(good)).build();
        assertThat(built.<Long>field("id")).as("the failed sets left the builder as it was").isEqualTo(1L);
        assertThat(built.<BinaryObject>field("nested")).isEqualTo(sample());
        assertThat(decode(built.toBytes())).isEqualTo(built);
    }

    private static void putInt(byte[] b, int at, int v) {
        b[at] = (byte) (v >>> 24);
        b[at + 1] = (byte) (v >>> 16);
        b[at + 2] = (byte) (v >>> 8);
        b[at + 3] = (byte) v;
    }

    /** 20,000 mutations by default; {@code -Dsluice.fuzz.iterations=...} and {@code -Dsluice.fuzz.seed=...} to dig. */
    @Test
    @Timeout(600)
    void randomMutationsOfValidEncodingsDecodeOrFailWithAFormatError() {
        List<byte[]> samples = new ArrayList<>();
        samples.add(sample().toBytes());
        samples.add(encode(Map.of("k", List.of(1, 2.5, "x"), "m", new int[]{1, 2})));
        samples.add(encode(new Object[]{UUID.randomUUID(), LocalDate.of(2000, 1, 1),
                LocalDateTime.of(2000, 1, 1, 0, 0), new BigDecimal("12.50"), new byte[]{1, 2, 3}, 'c', (short) 3}));
        samples.add(encode(123456789L));
        samples.add(encode("plain string key"));
        samples.add(binary.builder("Wide").setField("a", new double[]{1, 2}).setField("b", true)
                .setField("c", List.of(sample(), sample())).build().toBytes());
        long seed = Long.getLong("sluice.fuzz.seed", System.nanoTime());
        int iterations = Integer.getInteger("sluice.fuzz.iterations", 20_000);
        Random random = new Random(seed);
        int decoded = 0;
        int refused = 0;
        for (int i = 0; i < iterations; i++) {
            byte[] base = samples.get(random.nextInt(samples.size()));
            byte[] b = mutate(base, samples.get(random.nextInt(samples.size())), random);
            boolean readable;
            try {
                Object v = binary.decode(b, 0, b.length, random.nextBoolean());
                touch(v);
                decoded++;
                readable = true;
            } catch (BinaryFormatException expected) {
                assertThat(expected.getMessage()).as("seed %d", seed).contains("offset");
                refused++;
                readable = false;
            } catch (Throwable t) {
                fail("seed " + seed + ", iteration " + i + ", bytes " + Arrays.toString(b) + ": " + t, t);
                return;
            }
            // The node's check of received entries refuses exactly what a reader could not read.
            boolean accepted;
            try {
                binary.checkValue(b, 0, b.length);
                accepted = true;
            } catch (BinaryFormatException e) {
                assertThat(e.getMessage()).as("seed %d", seed).contains("offset");
                accepted = false;
            }
            assertThat(accepted).as("seed %d, iteration %d, bytes %s: checkValue agrees with reading it all", seed, i,
                    Arrays.toString(b)).isEqualTo(readable);
        }
        assertThat(refused).as("seed %d", seed).isGreaterThan(1000);
        assertThat(decoded).as("seed %d", seed).isGreaterThan(100);
    }

    /** Reads everything a user could read from a decoded value. */
    private void touch(Object v) {
        if (v instanceof BinaryObject) {
            BinaryObject o = (BinaryObject) v;
            for (String name : o.type().fieldNames()) {
                touch(o.field(name));
            }
            assertThat(o.toString()).isNotNull();
            assertThat(binary.toJson(o)).isNotNull();
            o.toBuilder().build();
        } else if (v instanceof Iterable<?>) {
            for (Object e : (Iterable<?>) v) {
                touch(e);
            }
        } else if (v instanceof Map<?, ?>) {
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                touch(e.getKey());
                touch(e.getValue());
            }
        } else if (v instanceof Object[]) {
            for (Object e : (Object[]) v) {
                touch(e);
            }
        }
    }

    private static byte[] mutate(byte[] base, byte[] other, Random random) {
        byte[] b = base.clone();
        switch (random.nextInt(5)) {
            case 0: {
                int flips = 1 + random.nextInt(3);
                for (int i = 0; i < flips; i++) {
                    int at = random.nextInt(b.length);
                    b[at] ^= (byte) (1 << random.nextInt(8));
                }
                return b;
            }
            case 1:
                return Arrays.copyOf(b, random.nextInt(b.length));
            case 2: {
                int at = random.nextInt(b.length);
                int from = random.nextInt(other.length);
                int n = Math.min(other.length - from, 1 + random.nextInt(16));
                byte[] spliced = new byte[b.length + n];
                System.arraycopy(b, 0, spliced, 0, at);
                System.arraycopy(other, from, spliced, at, n);
                System.arraycopy(b, at, spliced, at + n, b.length - at);
                return spliced;
            }
            case 3: {
                if (b.length >= 4) {
                    int at = random.nextInt(b.length - 3);
                    int[] choices = {0, -1, Integer.MAX_VALUE, Integer.MIN_VALUE, b.length, b.length + 1, 24, 8,
                            random.nextInt()};
                    putInt(b, at, choices[random.nextInt(choices.length)]);
                }
                return b;
            }
            default: {
                int at = random.nextInt(b.length);
                int n = Math.min(b.length - at, 1 + random.nextInt(8));
                byte[] cut = new byte[b.length - n];
                System.arraycopy(b, 0, cut, 0, at);
                System.arraycopy(b, at + n, cut, at, b.length - at - n);
                return cut.length == 0 ? b : cut;
            }
        }
    }
}
