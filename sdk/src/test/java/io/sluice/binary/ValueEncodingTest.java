package io.sluice.binary;

import io.sluice.binary.internal.BinaryContext;
import io.sluice.binary.internal.GrowableBuffer;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class ValueEncodingTest {

    private final BinaryContext binary = new BinaryContext();

    private byte[] encode(Object v) {
        GrowableBuffer out = new GrowableBuffer(16);
        binary.encode(v, out);
        return out.toByteArray();
    }

    private Object roundTrip(Object v) {
        byte[] b = encode(v);
        return binary.decode(b, 0, b.length, true);
    }

    @Test
    void everyScalarTypeRoundTrips() {
        List<Object> values = Arrays.asList(null, true, false, (byte) -7, (byte) 127, (short) -300, 'x', '\u20ac',
                0, -1, Integer.MIN_VALUE, Integer.MAX_VALUE, 0L, -1L, Long.MIN_VALUE, Long.MAX_VALUE, 1.5f, -0.0f,
                Float.NaN, 162.93, -1e300, Double.NEGATIVE_INFINITY, "", "SBER", "h\u00e9llo \u20ac \ud83d\ude00",
                "nul\u0000inside", "\u0141\u0041\u0100", UUID.randomUUID(), Instant.ofEpochSecond(-5, 123), Instant.now(),
                LocalDate.of(2026, 11, 22), LocalDate.MIN, LocalDateTime.of(2026, 11, 22, 1, 2, 3, 456),
                new BigDecimal("-12345.678900"), new BigDecimal("1E+40"), new BigInteger("-98765432109876543210"));
        for (Object v : values) {
            assertThat(roundTrip(v)).as("round trip of %s", v).isEqualTo(v);
        }
    }

    @Test
    void arraysListsSetsAndMapsRoundTripNested() {
        assertThat((byte[]) roundTrip(new byte[]{1, -2, 0, 127})).containsExactly(1, -2, 0, 127);
        assertThat((boolean[]) roundTrip(new boolean[]{true, false})).containsExactly(true, false);
        assertThat((short[]) roundTrip(new short[]{-1, 2})).containsExactly((short) -1, (short) 2);
        assertThat((char[]) roundTrip(new char[]{'a', '\u0000'})).containsExactly('a', '\u0000');
        assertThat((int[]) roundTrip(new int[]{Integer.MIN_VALUE, 0, 5})).containsExactly(Integer.MIN_VALUE, 0, 5);
        assertThat((long[]) roundTrip(new long[]{-1L, Long.MAX_VALUE})).containsExactly(-1L, Long.MAX_VALUE);
        assertThat((float[]) roundTrip(new float[]{-1.5f, 2f})).containsExactly(-1.5f, 2f);
        assertThat((double[]) roundTrip(new double[]{-0.5, 1e10})).containsExactly(-0.5, 1e10);
        assertThat((Object[]) roundTrip(new Object[]{"a", 1L, null, List.of(2, "b")}))
                .containsExactly("a", 1L, null, List.of(2, "b"));
        Map<Object, Object> map = new LinkedHashMap<>();
        map.put("k", List.of(1L, Map.of("inner", new int[0].length)));
        map.put(7, null);
        assertThat(roundTrip(map)).isEqualTo(map);
        Set<String> set = new LinkedHashSet<>(List.of("x", "y"));
        assertThat(roundTrip(set)).isInstanceOf(Set.class).isEqualTo(set);
        assertThat(roundTrip(List.of())).isEqualTo(List.of());
    }

    @Test
    void otherNumbersAndEnumsMapToTheirClosestTag() {
        assertThat(roundTrip(new AtomicLong(42))).isEqualTo(42L);
        assertThat(roundTrip(Thread.State.RUNNABLE)).isEqualTo("RUNNABLE");
    }

    @Test
    void aCollectionContainingItselfFailsClearly() {
        List<Object> loop = new java.util.ArrayList<>();
        loop.add(loop);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> encode(loop))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("contain itself");
        Object deep = "leaf";
        for (int i = 0; i < 99; i++) {
            deep = List.of(deep);
        }
        assertThat(roundTrip(deep)).isEqualTo(deep);
    }

    @Test
    void aLongKeyIsItsTagAndEightOrderedBytes() {
        assertThat(encode(1L)).containsExactly(0x06, 0x80, 0, 0, 0, 0, 0, 0, 1);
        assertThat(encode(-1L)).containsExactly(0x06, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff);
        assertThat(encode("ab")).containsExactly(0x09, 'a', 'b', 0);
    }

    @Test
    void equalValuesEncodeToEqualBytes() {
        assertThat(encode(new String("key-1"))).isEqualTo(encode("key-" + 1));
        assertThat(encode(Long.valueOf(1234567L))).isEqualTo(encode(1234567L));
        assertThat(encode(Double.longBitsToDouble(0x7ff8000000000001L))).isEqualTo(encode(Double.NaN));
    }

    @Test
    void encodedLongsIntsDoublesAndStringsSortInNaturalOrder() {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        for (int i = 0; i < 20_000; i++) {
            long a = pick(random);
            long b = pick(random);
            assertThat(Integer.signum(Arrays.compareUnsigned(encode(a), encode(b))))
                    .as("longs %d vs %d, seed %d", a, b, seed).isEqualTo(Integer.signum(Long.compare(a, b)));
            int x = (int) a;
            int y = (int) b;
            assertThat(Integer.signum(Arrays.compareUnsigned(encode(x), encode(y))))
                    .as("ints %d vs %d, seed %d", x, y, seed).isEqualTo(Integer.signum(Integer.compare(x, y)));
            double d = Double.longBitsToDouble(a);
            double e = Double.longBitsToDouble(b);
            if (!Double.isNaN(d) && !Double.isNaN(e)) {
                assertThat(Integer.signum(Arrays.compareUnsigned(encode(d), encode(e))))
                        .as("doubles %s vs %s, seed %d", d, e, seed).isEqualTo(Integer.signum(Double.compare(d, e)));
            }
            String s = randomString(random);
            String t = randomString(random);
            assertThat(Integer.signum(Arrays.compareUnsigned(encode(s), encode(t))))
                    .as("strings %s vs %s, seed %d", s, t, seed)
                    .isEqualTo(Integer.signum(compareCodePoints(s, t)));
        }
    }

    @Test
    void encodedUuidsInstantsAndDatesSortInNaturalOrder() {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        for (int i = 0; i < 5_000; i++) {
            UUID u = new UUID(pick(random), pick(random));
            UUID v = new UUID(random.nextBoolean() ? u.getMostSignificantBits() : pick(random), pick(random));
            assertOrder(u, v, u.compareTo(v), seed);
            Instant a = Instant.ofEpochSecond(pick(random) % 1_000_000_000_000L, random.nextInt(1_000_000_000));
            Instant b = random.nextBoolean() ? a.plusNanos(random.nextInt(3) - 1)
                    : Instant.ofEpochSecond(pick(random) % 1_000_000_000_000L, random.nextInt(1_000_000_000));
            assertOrder(a, b, a.compareTo(b), seed);
            LocalDateTime x = LocalDateTime.ofEpochSecond(pick(random) % 100_000_000_000L, random.nextInt(1000),
                    java.time.ZoneOffset.UTC);
            LocalDateTime y = x.plusNanos(random.nextInt(2_000_000_001) - 1_000_000_000L);
            assertOrder(x, y, x.compareTo(y), seed);
            assertOrder(x.toLocalDate(), y.toLocalDate(), x.toLocalDate().compareTo(y.toLocalDate()), seed);
        }
    }

    private void assertOrder(Object a, Object b, int expected, long seed) {
        assertThat(Integer.signum(Arrays.compareUnsigned(encode(a), encode(b))))
                .as("%s vs %s, seed %d", a, b, seed).isEqualTo(Integer.signum(expected));
    }

    private static long pick(Random random) {
        switch (random.nextInt(4)) {
            case 0: return random.nextInt(2000) - 1000;
            case 1: return random.nextBoolean() ? Long.MIN_VALUE + random.nextInt(3) : Long.MAX_VALUE - random.nextInt(3);
            default: return random.nextLong();
        }
    }

    private static String randomString(Random random) {
        int n = random.nextInt(4);
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < n; i++) {
            switch (random.nextInt(5)) {
                case 0: s.append('\u0000'); break;
                case 1: s.append((char) ('a' + random.nextInt(3))); break;
                case 2: s.append('\u00ff'); break;
                case 3: s.append('\uffee'); break;
                default: s.appendCodePoint(0x1F600 + random.nextInt(2)); break;
            }
        }
        return s.toString();
    }

    private static int compareCodePoints(String a, String b) {
        int[] x = a.codePoints().toArray();
        int[] y = b.codePoints().toArray();
        return Arrays.compare(x, y);
    }

    @Test
    void encodingABoxedLongOrStringAllocatesNothing() {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        GrowableBuffer out = new GrowableBuffer(1 << 16);
        Long key = 123456789L;
        String s = "L01-00000F00";
        for (int i = 0; i < 100_000; i++) {
            out.reset();
            binary.encode(key, out);
            binary.encode(s, out);
        }
        long before = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
        for (int i = 0; i < 100_000; i++) {
            out.reset();
            binary.encode(key, out);
            binary.encode(s, out);
        }
        long allocated = threads.getThreadAllocatedBytes(Thread.currentThread().getId()) - before;
        // 200,000 encodes: anything per encode would be megabytes; allow a little for the measurement itself
        assertThat(allocated).as("bytes allocated by 200,000 encodes").isLessThan(64 * 1024);
    }
}
