package io.sluice.binary;

import io.sluice.SluiceException;
import io.sluice.binary.internal.BinaryContext;
import io.sluice.binary.internal.GrowableBuffer;
import org.junit.jupiter.api.Test;

import javax.crypto.spec.SecretKeySpec;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PojoMarshallingTest {

    enum Side { BUY, SELL }

    record Leg(String venue, int lots) {
    }

    record Trade(String symbol, double price, long quantity, boolean open, Instant at, Side side, List<String> tags,
                 Leg leg, int[] fills, BigDecimal fee, UUID id, byte[] raw, Map<String, Long> limits) {
    }

    static class Base {
        protected long id;
        private String owner;

        String owner() {
            return owner;
        }

        void owner(String owner) {
            this.owner = owner;
        }
    }

    static class Account extends Base {
        private String name;
        private double balance;
        private LocalDate opened;
        private List<Leg> legs = new ArrayList<>();
        private transient String cache = "not marshalled";
        static String shared = "not marshalled either";
        private Character grade;

        Account() {
        }

        Account(long id, String owner, String name, double balance, LocalDate opened, List<Leg> legs, Character grade) {
            this.id = id;
            owner(owner);
            this.name = name;
            this.balance = balance;
            this.opened = opened;
            this.legs = legs;
            this.grade = grade;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Account)) {
                return false;
            }
            Account a = (Account) o;
            return id == a.id && Objects.equals(owner(), a.owner()) && Objects.equals(name, a.name)
                    && balance == a.balance && Objects.equals(opened, a.opened) && Objects.equals(legs, a.legs)
                    && Objects.equals(grade, a.grade);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(id);
        }
    }

    static final class Node {
        String name;
        Node next;
    }

    static final class NoDefaultConstructor {
        private final String value;

        NoDefaultConstructor(String value) {
            this.value = value;
        }
    }

    private final BinaryContext binary = new BinaryContext();

    private static Trade trade() {
        return new Trade("SBER", 162.93, 100, true, Instant.parse("2026-11-22T01:00:00.123Z"), Side.SELL,
                List.of("a", "b"), new Leg("MOEX", 3), new int[]{1, 2}, new BigDecimal("0.0125"),
                UUID.fromString("123e4567-e89b-12d3-a456-426614174000"), new byte[]{9, 8}, Map.of("day", 5L));
    }

    private static void assertSameTrade(Trade actual, Trade expected) {
        assertThat(actual).usingRecursiveComparison().isEqualTo(expected);
    }

    @Test
    void aRecordBecomesABinaryObjectWhoseFieldsReadBack() {
        BinaryObject o = binary.toBinary(trade());
        assertThat(o.type().typeName()).isEqualTo(Trade.class.getName());
        assertThat(o.<String>field("symbol")).isEqualTo("SBER");
        assertThat(o.<Double>field("price")).isEqualTo(162.93);
        assertThat(o.<Long>field("quantity")).isEqualTo(100L);
        assertThat(o.<String>field("side")).isEqualTo("SELL");
        BinaryObject leg = o.field("leg");
        assertThat(leg.<Integer>field("lots")).isEqualTo(3);
        assertThat(o.type().fieldTypeName("price")).isEqualTo("double");
        assertThat(o.type().fieldTypeName("leg")).isEqualTo("BinaryObject");
    }

    @Test
    void aRecordRoundTripsThroughDeserializeAndDecode() {
        Trade t = trade();
        BinaryObject o = binary.toBinary(t);
        assertSameTrade(o.deserialize(Trade.class), t);
        GrowableBuffer out = new GrowableBuffer(16);
        binary.encode(t, out);
        assertThat(out.toByteArray()).isEqualTo(o.toBytes());
        Object decoded = binary.decode(out.array(), 0, out.position(), false);
        assertThat(decoded).isInstanceOf(Trade.class);
        assertSameTrade((Trade) decoded, t);
        assertThat(binary.decode(out.array(), 0, out.position(), true)).isEqualTo(o);
    }

    @Test
    void aPojoWithInheritedPrivateFieldsRoundTripsAndSkipsTransientAndStaticFields() {
        Account a = new Account(7, "ann", "main", 10.5, LocalDate.of(2020, 1, 2), List.of(new Leg("X", 1)), 'A');
        BinaryObject o = binary.toBinary(a);
        assertThat(o.type().fieldNames()).containsExactly("id", "owner", "name", "balance", "opened", "legs", "grade");
        assertThat(o.hasField("cache")).isFalse();
        assertThat(o.<String>field("owner")).isEqualTo("ann");
        Account back = o.deserialize(Account.class);
        assertThat(back).isEqualTo(a);
        assertThat(back.legs.get(0)).isEqualTo(new Leg("X", 1));
        assertThat(back.cache).isEqualTo("not marshalled");
    }

    @Test
    void aBuilderObjectDeserializesByFieldName() {
        BinaryObject o = binary.builder("LegLike").setField("venue", "SPB").setField("lots", 4).setField("extra", 1L)
                .build();
        assertThat(o.deserialize(Leg.class)).isEqualTo(new Leg("SPB", 4));
        BinaryObject missing = binary.builder("LegLike").setField("venue", "SPB").build();
        assertThat(missing.deserialize(Leg.class)).isEqualTo(new Leg("SPB", 0));
        BinaryObject wide = binary.builder("LegWide").setField("lots", 4L).build();
        assertThat(wide.deserialize(Leg.class)).isEqualTo(new Leg(null, 4));
        BinaryObject tooWide = binary.builder("LegWide").setField("lots", 5_000_000_000L).build();
        assertThatThrownBy(() -> tooWide.deserialize(Leg.class)).isInstanceOf(BinaryTypeMismatchException.class)
                .hasMessageContaining("5000000000").hasMessageContaining("lots");
        BinaryObject wrong = binary.builder("LegWrong").setField("lots", "four").build();
        assertThatThrownBy(() -> wrong.deserialize(Leg.class)).isInstanceOf(BinaryTypeMismatchException.class)
                .hasMessageContaining("lots").hasMessageContaining("int");
    }

    @Test
    void aClassWhoseTypeNameWasRegisteredWithOtherFieldTypesIsAMismatch() {
        binary.builder(Leg.class.getName()).setField("lots", "many").build();
        assertThatThrownBy(() -> binary.toBinary(new Leg("A", 1))).isInstanceOf(BinaryTypeMismatchException.class)
                .hasMessageContaining("lots").hasMessageContaining("String").hasMessageContaining("int");
    }

    @Test
    void inaccessibleClassesAndJdkTypesFailWithAClearMessage() {
        assertThatThrownBy(() -> binary.toBinary(new SecretKeySpec(new byte[]{1}, "AES")))
                .isInstanceOf(SluiceException.class)
                .hasMessageContaining("javax.crypto.spec.SecretKeySpec cannot be marshalled");
        assertThatThrownBy(() -> binary.toBinary(new java.util.Date()))
                .hasMessageContaining("java.util.Date");
        BinaryObject o = binary.builder("Holder").setField("value", "x").build();
        assertThatThrownBy(() -> o.deserialize(NoDefaultConstructor.class))
                .hasMessageContaining("no-argument constructor");
    }

    @Test
    void aCycleInTheObjectGraphFailsClearlyInsteadOfOverflowingTheStack() {
        Node a = new Node();
        a.name = "a";
        a.next = new Node();
        a.next.name = "b";
        BinaryObject chain = binary.toBinary(a);
        assertThat(chain.<BinaryObject>field("next").<String>field("name")).isEqualTo("b");
        assertThat(chain.deserialize(Node.class).next.name).isEqualTo("b");
        a.next.next = a;
        assertThatThrownBy(() -> binary.toBinary(a)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("nested deeper than 64").hasMessageContaining("cycle");
        GrowableBuffer out = new GrowableBuffer(16);
        assertThatThrownBy(() -> binary.encode(a, out)).isInstanceOf(IllegalArgumentException.class);
        a.next.next = null;
        assertThat(binary.toBinary(a)).isEqualTo(chain);
    }

    @Test
    void pojoToBinaryToJsonAndBackIsTheSamePojo() {
        Trade t = trade();
        BinaryObject o = binary.toBinary(t);
        String json = binary.toJson(o);
        assertThat(json).contains("\"symbol\":\"SBER\"").contains("\"price\":162.93")
                .contains("\"at\":\"2026-11-22T01:00:00.123Z\"");
        BinaryObject fromJson = binary.fromJson(json, Trade.class.getName());
        assertThat(fromJson.<Long>field("quantity")).isEqualTo(100L);
        assertSameTrade(fromJson.deserialize(Trade.class), t);
        Account a = new Account(1, "bob", null, -3.25, LocalDate.of(1999, 12, 31), List.of(), null);
        BinaryObject ab = binary.fromJson(binary.toJson(binary.toBinary(a)), Account.class.getName());
        assertThat(ab.deserialize(Account.class)).isEqualTo(a);
    }

    @Test
    void jsonWithoutARegisteredTypeMapsToNaturalTypes() {
        BinaryObject o = binary.fromJson("{\"n\":1,\"d\":2.5,\"s\":\"x\",\"b\":true,\"z\":null,"
                + "\"list\":[1,\"two\"],\"obj\":{\"k\":\"v\"}}", "Loose");
        assertThat(o.<Long>field("n")).isEqualTo(1L);
        assertThat(o.<Double>field("d")).isEqualTo(2.5);
        assertThat(o.<String>field("s")).isEqualTo("x");
        assertThat(o.<Boolean>field("b")).isTrue();
        assertThat(o.hasField("z")).isTrue();
        assertThat(o.<List<Object>>field("list")).containsExactly(1L, "two");
        assertThat(o.<BinaryObject>field("obj").<String>field("k")).isEqualTo("v");
        assertThat(binary.toJson(o)).isEqualTo("{\"n\":1,\"d\":2.5,\"s\":\"x\",\"b\":true,\"z\":null,"
                + "\"list\":[1,\"two\"],\"obj\":{\"k\":\"v\"}}");
        assertThatThrownBy(() -> binary.fromJson("{\"n\":\"not a number\"}", "Loose"))
                .isInstanceOf(BinaryTypeMismatchException.class).hasMessageContaining("'n'")
                .hasMessageContaining("long");
        assertThatThrownBy(() -> binary.fromJson("{\"n\":1.5}", "Loose"))
                .isInstanceOf(BinaryTypeMismatchException.class).hasMessageContaining("1.5");
        assertThat(binary.fromJson("{\"n\":2.0}", "Loose").<Long>field("n")).isEqualTo(2L);
        assertThatThrownBy(() -> binary.fromJson("[1]", "Loose")).isInstanceOf(IllegalArgumentException.class);
    }
}
