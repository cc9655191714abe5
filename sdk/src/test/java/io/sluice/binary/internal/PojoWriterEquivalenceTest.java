package io.sluice.binary.internal;

import io.sluice.binary.internal.other.ForeignBase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Generated POJO writers ({@link PojoWriters}) write exactly the bytes of the reflective writer (the accessor loop
 * they replaced) for random instances of every supported property type, nulls, nesting and collections included.
 */
@Timeout(60)
class PojoWriterEquivalenceTest {

    enum Side { BUY, SELL }

    record Leg(String venue, int lots) {
    }

    record Everything(boolean z, byte b, short s, char c, int i, long l, float f, double d,
                      Boolean zb, Byte bb, Short sb, Character cb, Integer ib, Long lb, Float fb, Double db,
                      String str, byte[] bytes, UUID uuid, Instant instant, LocalDate date, LocalDateTime dateTime,
                      BigDecimal dec, BigInteger big, Side side, AtomicLong atomicLong, AtomicInteger atomicInt,
                      int[] ints, long[] longs, double[] doubles, float[] floats, short[] shorts, char[] chars,
                      boolean[] booleans, String[] strings, Leg[] legs, List<String> list, Set<Long> set,
                      Map<String, Integer> map, List<Leg> legList, Leg leg, Object any, Holder holder) {
    }

    static class BaseHolder {
        private String owner;
        protected long id;
    }

    /** A POJO with private fields, one in a superclass of the same nest. */
    static class Holder extends BaseHolder {
        private double amount;
        private String name;
        private transient String skipped = "transient";
        private Leg leg;
        private List<Object> mixed;
        private char grade;
    }

    /** A private class: the writer joins its nest to read it. */
    private static final class Secret {
        private int code;
        private String text;
    }

    /** Its superclass's private field is out of the generated writer's reach. */
    static final class Foreign extends ForeignBase {
        private String local;
    }

    private final BinaryContext context = new BinaryContext();

    @Test
    void generatedWritersWriteTheReflectiveWritersBytesForRandomInstances() {
        long seed = System.nanoTime();
        Random r = new Random(seed);
        for (int n = 0; n < 3_000; n++) {
            assertSameBytes(everything(r), "seed " + seed + ", instance " + n);
            assertSameBytes(holder(r), "seed " + seed + ", holder " + n);
            assertSameBytes(new Leg(string(r), r.nextInt()), "seed " + seed + ", leg " + n);
            Secret s = new Secret();
            s.code = r.nextInt();
            s.text = string(r);
            assertSameBytes(s, "seed " + seed + ", secret " + n);
        }
        for (Class<?> c : List.of(Everything.class, Holder.class, Leg.class, Secret.class)) {
            assertThat(ClassLayout.of(c).writer()).as(c.getName()).isNotInstanceOf(ReflectivePojoWriter.class);
        }
    }

    @Test
    void aClassWithAnUnreachableInheritedFieldGetsTheReflectiveWriterAndRoundTrips() {
        Foreign f = new Foreign();
        f.local = "here";
        f.origin("there");
        f.serial = 7;
        assertThat(ClassLayout.of(Foreign.class).writer()).isInstanceOf(ReflectivePojoWriter.class);
        assertSameBytes(f, "foreign");
        Foreign back = context.toBinary(f).deserialize(Foreign.class);
        assertThat(back.local).isEqualTo("here");
        assertThat(back.serial).isEqualTo(7);
    }

    @Test
    void whatAPropertyValueThrowsComesOutOfTheGeneratedWriter() {
        Holder h = new Holder();
        h.mixed = new ArrayList<>(List.of(Thread.currentThread())); // no binary encoding for a Thread
        GrowableBuffer out = new GrowableBuffer(64);
        assertThatThrownBy(() -> context.encode(h, out)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("java.lang.Thread");
    }

    private void assertSameBytes(Object pojo, String what) {
        ClassLayout layout = ClassLayout.of(pojo.getClass());
        GrowableBuffer generated = new GrowableBuffer(64);
        GrowableBuffer reflective = new GrowableBuffer(64);
        generated.position(3); // not at 0: offsets are relative to the object
        reflective.position(3);
        context.marshal(pojo, layout, layout.writer(), generated);
        context.marshal(pojo, layout, new ReflectivePojoWriter(layout), reflective);
        assertThat(generated.toByteArray()).as(what).isEqualTo(reflective.toByteArray());
        GrowableBuffer encoded = new GrowableBuffer(64);
        encoded.position(3);
        context.encode(pojo, encoded);
        assertThat(encoded.toByteArray()).as(what).isEqualTo(generated.toByteArray());
    }

    private Everything everything(Random r) {
        return new Everything(r.nextBoolean(), (byte) r.nextInt(), (short) r.nextInt(), (char) r.nextInt(),
                r.nextInt(), r.nextLong(), r.nextFloat() - 0.5f, r.nextGaussian() * 1e6,
                maybe(r, Random::nextBoolean), maybe(r, x -> (byte) x.nextInt()), maybe(r, x -> (short) x.nextInt()),
                maybe(r, x -> (char) x.nextInt()), maybe(r, Random::nextInt), maybe(r, Random::nextLong),
                maybe(r, Random::nextFloat), maybe(r, Random::nextDouble),
                maybe(r, PojoWriterEquivalenceTest::string), maybe(r, x -> bytes(x, x.nextInt(40))),
                maybe(r, x -> new UUID(x.nextLong(), x.nextLong())),
                maybe(r, x -> Instant.ofEpochSecond(x.nextInt(), x.nextInt(1_000_000_000))),
                maybe(r, x -> LocalDate.ofEpochDay(x.nextInt(100_000) - 50_000)),
                maybe(r, x -> LocalDateTime.of(2026, 1 + x.nextInt(12), 1 + x.nextInt(28), x.nextInt(24), x.nextInt(60))),
                maybe(r, x -> BigDecimal.valueOf(x.nextLong(), x.nextInt(20) - 10)),
                maybe(r, x -> new BigInteger(x.nextInt(200), x)), maybe(r, x -> Side.values()[x.nextInt(2)]),
                maybe(r, x -> new AtomicLong(x.nextLong())), maybe(r, x -> new AtomicInteger(x.nextInt())),
                maybe(r, x -> x.ints(x.nextInt(5)).toArray()), maybe(r, x -> x.longs(x.nextInt(5)).toArray()),
                maybe(r, x -> x.doubles(x.nextInt(5)).toArray()), maybe(r, x -> new float[] {x.nextFloat(), -1f}),
                maybe(r, x -> new short[] {(short) x.nextInt()}), maybe(r, x -> string(x).toCharArray()),
                maybe(r, x -> new boolean[] {x.nextBoolean(), true}),
                maybe(r, x -> new String[] {string(x), null}), maybe(r, x -> new Leg[] {new Leg(string(x), 1), null}),
                maybe(r, x -> list(x, PojoWriterEquivalenceTest::string)), maybe(r, x -> new LinkedHashSet<>(list(x, Random::nextLong))),
                maybe(r, PojoWriterEquivalenceTest::map), maybe(r, x -> list(x, y -> new Leg(string(y), y.nextInt()))),
                maybe(r, x -> new Leg(string(x), x.nextInt())), maybe(r, PojoWriterEquivalenceTest::any),
                maybe(r, this::holder));
    }

    private Holder holder(Random r) {
        Holder h = new Holder();
        ((BaseHolder) h).owner = maybe(r, PojoWriterEquivalenceTest::string);
        h.id = r.nextLong();
        h.amount = r.nextDouble();
        h.name = maybe(r, PojoWriterEquivalenceTest::string);
        h.leg = maybe(r, x -> new Leg(string(x), x.nextInt()));
        h.mixed = maybe(r, x -> list(x, PojoWriterEquivalenceTest::any));
        h.grade = (char) r.nextInt(128);
        return h;
    }

    /** A value of any supported kind for an {@code Object} property. */
    private static Object any(Random r) {
        switch (r.nextInt(7)) {
            case 0: return r.nextLong();
            case 1: return string(r);
            case 2: return r.nextDouble();
            case 3: return new Leg(string(r), r.nextInt());
            case 4: return List.of(r.nextInt());
            case 5: return Side.BUY;
            default: return null;
        }
    }

    private static Map<String, Integer> map(Random r) {
        Map<String, Integer> m = new LinkedHashMap<>();
        for (int i = r.nextInt(4); i > 0; i--) {
            m.put(string(r), r.nextBoolean() ? null : r.nextInt());
        }
        return m;
    }

    private static <T> List<T> list(Random r, Function<Random, T> element) {
        List<T> l = new ArrayList<>();
        for (int i = r.nextInt(4); i > 0; i--) {
            l.add(element.apply(r));
        }
        return l;
    }

    /** ASCII mostly; sometimes NUL, Cyrillic, a surrogate pair or an unpaired surrogate. */
    private static String string(Random r) {
        StringBuilder b = new StringBuilder();
        for (int i = r.nextInt(20); i > 0; i--) {
            switch (r.nextInt(10)) {
                case 0: b.append('\0'); break;
                case 1: b.append((char) ('а' + r.nextInt(32))); break;
                case 2: b.appendCodePoint(0x1F600 + r.nextInt(50)); break;
                case 3: b.append('\uD800'); break;
                default: b.append((char) (' ' + r.nextInt(95)));
            }
        }
        return b.toString();
    }

    private static byte[] bytes(Random r, int n) {
        byte[] b = new byte[n];
        r.nextBytes(b);
        return b;
    }

    /** Null one time in five. */
    private static <T> T maybe(Random r, Function<Random, T> value) {
        return r.nextInt(5) == 0 ? null : value.apply(r);
    }
}
