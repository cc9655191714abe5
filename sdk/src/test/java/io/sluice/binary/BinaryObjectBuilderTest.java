package io.sluice.binary;

import io.sluice.binary.internal.BinaryContext;
import io.sluice.binary.internal.GrowableBuffer;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BinaryObjectBuilderTest {

    private final BinaryContext binary = new BinaryContext();

    private BinaryObject order(BinaryObjectBuilder b, long key) {
        return b.setField("secCode", "SBER")
                .setField("price", 100.0 + key / 100.0)
                .setField("quantity", key)
                .setField("buySell", (key & 1) == 0 ? "B" : "S")
                .setField("marketMaker", key % 10 == 0)
                .build();
    }

    @Test
    void aStringFromAsciiBytesIsTheSameBytesAsFromAString() {
        BinaryObjectBuilder fromBytes = binary.builder("Ascii");
        BinaryObjectBuilder fromString = binary.builder("Ascii");
        StringBuilder every = new StringBuilder();
        for (char c = 1; c < 0x80; c++) {
            every.append(c);
        }
        List<String> texts = new java.util.ArrayList<>(List.of("", "SBER", "L01-00000F00", every.toString(),
                "x".repeat(300)));
        for (int length = 1; length <= 40; length++) { // every length the short copies take, and past them
            texts.add(every.substring(length, 2 * length));
        }
        for (String text : texts) {
            byte[] padded = ("<<" + text + ">>").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            BinaryObject a = ((io.sluice.binary.internal.AsciiStringBuilder) fromBytes)
                    .setAsciiString("t", padded, 2, text.length()).setLong("n", 1).build();
            BinaryObject b = fromString.setField("t", text).setLong("n", 1).build();
            assertThat(a.toBytes()).as(text).isEqualTo(b.toBytes());
            assertThat((String) a.field("t")).isEqualTo(text);
        }
        assertThatThrownBy(() -> ((io.sluice.binary.internal.AsciiStringBuilder) fromBytes)
                .setAsciiString("t", new byte[3], 2, 2)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> ((io.sluice.binary.internal.AsciiStringBuilder) fromBytes)
                .setAsciiString("n", new byte[3], 0, 3)).isInstanceOf(BinaryTypeMismatchException.class);
    }

    @Test
    void clearDropsTheFieldsSetSinceTheLastBuildOnTheFastPathAndOffIt() {
        io.sluice.binary.internal.AsciiStringBuilder b =
                (io.sluice.binary.internal.AsciiStringBuilder) binary.builder("Cleared");
        BinaryObjectBuilder fresh = binary.builder("Cleared");
        byte[] text = "SBERx".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        b.setAsciiString("s", text, 0, 4).setLong("n", 1).build();
        // on the fast path (the previous object's first fields in order), then off it (another order, a replaced
        // field): after clear() the next object has only its own fields, and the same bytes as from a fresh builder
        b.setAsciiString("s", text, 0, 5);
        b.clear();
        assertThat(b.setLong("n", 2).build().toBytes()).isEqualTo(fresh.setLong("n", 2).build().toBytes());
        b.setLong("n", 3);
        b.setAsciiString("s", text, 0, 3).setLong("n", 4);
        b.clear();
        assertThat(b.setAsciiString("s", text, 0, 4).setLong("n", 5).build().toBytes())
                .isEqualTo(fresh.setField("s", "SBER").setLong("n", 5).build().toBytes());
        b.clear();
        assertThat(b.build().toBytes()).isEqualTo(fresh.build().toBytes());
    }

    @Test
    void aStringFromACharRangeIsTheSameBytesAsFromAString() {
        BinaryObjectBuilder fromChars = binary.builder("Text");
        BinaryObjectBuilder fromString = binary.builder("Text");
        for (String text : List.of("", "SBER", "caf\u00e9", "\u65e5\u672c", "a\u0000b", "\ud83d\ude00!", "x\ud800y")) {
            char[] padded = ("<<" + text + ">>").toCharArray();
            BinaryObject a = fromChars.setString("t", padded, 2, text.length()).setLong("n", 1).build();
            BinaryObject b = fromString.setField("t", text).setLong("n", 1).build();
            assertThat(a.toBytes()).as(text).isEqualTo(b.toBytes());
            assertThat((String) a.field("t")).isEqualTo(new String(text.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                    java.nio.charset.StandardCharsets.UTF_8));
        }
        assertThatThrownBy(() -> fromChars.setString("t", new char[3], 2, 2)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> fromChars.setString("n", "x".toCharArray(), 0, 1).build())
                .isInstanceOf(BinaryTypeMismatchException.class);
    }

    @Test
    void fieldsReadBackWithTheirTypes() {
        BinaryObject o = order(binary.builder("StockOrder"), 42);
        assertThat((String) o.field("secCode")).isEqualTo("SBER");
        assertThat((Double) o.field("price")).isEqualTo(100.42);
        assertThat((Long) o.field("quantity")).isEqualTo(42L);
        assertThat((String) o.field("buySell")).isEqualTo("B");
        assertThat((Boolean) o.field("marketMaker")).isFalse();
        assertThat(o.hasField("price")).isTrue();
        assertThat(o.hasField("nope")).isFalse();
        assertThat(o.<Object>field("nope")).isNull();
        assertThat(o.type().typeName()).isEqualTo("StockOrder");
        assertThat(o.type().fieldNames()).containsExactly("secCode", "price", "quantity", "buySell", "marketMaker");
        assertThat(o.type().fieldTypeName("price")).isEqualTo("double");
        assertThat(o.type().fieldTypeName("quantity")).isEqualTo("long");
        assertThat(o.type().fieldTypeName("secCode")).isEqualTo("String");
        assertThat(binary.type("StockOrder")).isSameAs(o.type());
    }

    @Test
    void aReusedBuilderBuildsManyCorrectObjects() {
        BinaryObjectBuilder b = binary.builder("StockOrder");
        BinaryObject[] built = new BinaryObject[1000];
        for (int k = 0; k < built.length; k++) {
            built[k] = order(b, k);
        }
        for (int k = 0; k < built.length; k++) {
            BinaryObject o = built[k];
            assertThat((Long) o.field("quantity")).isEqualTo(k);
            assertThat((Double) o.field("price")).isEqualTo(100.0 + k / 100.0);
            assertThat((String) o.field("buySell")).isEqualTo((k & 1) == 0 ? "B" : "S");
            assertThat((Boolean) o.field("marketMaker")).isEqualTo(k % 10 == 0);
            assertThat(o).isEqualTo(order(binary.builder("StockOrder"), k));
        }
    }

    @Test
    void aReusedBuilderHandlesChangingFieldOrderSetsAndRemovals() {
        BinaryObjectBuilder b = binary.builder("Shape");
        BinaryObject first = b.setField("a", 1).setField("b", "x").build();
        BinaryObject second = b.setField("b", "y").setField("c", 3L).setField("a", 2).build();
        BinaryObject third = b.setField("a", 5).setField("a", 6).setField("b", "z").removeField("b").build();
        BinaryObject fourth = b.build();
        assertThat(first.<Integer>field("a")).isEqualTo(1);
        assertThat(first.hasField("c")).isFalse();
        assertThat(second.<String>field("b")).isEqualTo("y");
        assertThat(second.<Long>field("c")).isEqualTo(3L);
        assertThat(second.<Integer>field("a")).isEqualTo(2);
        assertThat(third.<Integer>field("a")).isEqualTo(6);
        assertThat(third.hasField("b")).isFalse();
        assertThat(fourth.hasField("a")).isFalse();
        assertThat(third).isEqualTo(binary.builder("Shape").setField("a", 6).build());
    }

    @Test
    void leavingThePreviousOrderMidwayKeepsEveryValue() {
        BinaryObjectBuilder b = binary.builder("Order3");
        BinaryObject abc = b.setLong("a", 1).setField("b", "x").setDouble("c", 0.5).build();
        BinaryObject ab = b.setLong("a", 2).setField("b", "y").build();
        BinaryObject abc2 = b.setLong("a", 3).setField("b", "z").setDouble("c", 1.5).build();
        BinaryObject replaced = b.setLong("a", 4).setLong("a", 5).setField("b", "w").setDouble("c", 2.5).build();
        BinaryObject removed = b.setLong("a", 6).setField("b", "v").removeField("a").setDouble("c", 3.5).build();
        BinaryObject failed = b.setLong("a", 7).setField("b", "u").build();
        assertThatThrownBy(() -> b.setLong("a", 8).setField("b", 9)).isInstanceOf(BinaryTypeMismatchException.class);
        BinaryObject afterFailure = b.setDouble("c", 4.5).build();
        assertThat(abc.toString()).isEqualTo("Order3{a=1, b=x, c=0.5}");
        assertThat(ab.toString()).isEqualTo("Order3{a=2, b=y}");
        assertThat(abc2.toString()).isEqualTo("Order3{a=3, b=z, c=1.5}");
        assertThat(replaced.toString()).isEqualTo("Order3{a=5, b=w, c=2.5}");
        assertThat(removed.toString()).isEqualTo("Order3{b=v, c=3.5}");
        assertThat(failed.toString()).isEqualTo("Order3{a=7, b=u}");
        assertThat(afterFailure.toString()).isEqualTo("Order3{a=8, c=4.5}");
        assertThat(replaced).isEqualTo(binary.builder("Order3").setLong("a", 5).setField("b", "w")
                .setDouble("c", 2.5).build());
        for (BinaryObject o : List.of(abc, ab, abc2, replaced, removed, failed, afterFailure)) {
            byte[] bytes = o.toBytes();
            assertThat(binary.decode(bytes, 0, bytes.length, true)).isEqualTo(o);
        }
    }

    @Test
    void toBuilderStartsFromTheObjectsFields() {
        BinaryObject o = order(binary.builder("StockOrder"), 7);
        BinaryObject changed = o.toBuilder().setField("price", 1.25).removeField("buySell").build();
        assertThat(changed.<Double>field("price")).isEqualTo(1.25);
        assertThat(changed.<Long>field("quantity")).isEqualTo(7L);
        assertThat(changed.hasField("buySell")).isFalse();
        assertThat(o.<Double>field("price")).isEqualTo(100.07);
        assertThat(o.toBuilder().build()).isEqualTo(o);
    }

    @Test
    void nestedObjectsAndCollectionsReadBack() {
        BinaryObject address = binary.builder("Address").setField("city", "Moscow").setField("zip", 101000).build();
        UUID id = UUID.randomUUID();
        BinaryObject person = binary.builder("Person")
                .setField("id", id)
                .setField("address", address)
                .setField("tags", List.of("a", "b"))
                .setField("history", List.of(address, address))
                .setField("attrs", Map.of("since", Instant.EPOCH))
                .build();
        BinaryObject nested = person.field("address");
        assertThat(nested.<String>field("city")).isEqualTo("Moscow");
        assertThat(nested).isEqualTo(address);
        assertThat(person.<UUID>field("id")).isEqualTo(id);
        assertThat(person.<List<String>>field("tags")).containsExactly("a", "b");
        assertThat(person.<List<Object>>field("history")).containsExactly(address, address);
        assertThat(person.<Map<String, Object>>field("attrs")).containsEntry("since", Instant.EPOCH);
    }

    @Test
    void aBinaryObjectEncodesAsItsOwnBytesAndDecodesBack() {
        BinaryObject o = order(binary.builder("StockOrder"), 3);
        GrowableBuffer out = new GrowableBuffer(8);
        binary.encode(o, out);
        assertThat(out.toByteArray()).isEqualTo(o.toBytes());
        Object back = binary.decode(out.array(), 0, out.position(), true);
        assertThat(back).isEqualTo(o);
        assertThat(back.hashCode()).isEqualTo(o.hashCode());
        assertThat(binary.decode(out.array(), 0, out.position(), false)).isEqualTo(o);
    }

    @Test
    void aFieldSetWithAnotherTypeIsAMismatchNamingTypeFieldAndTypes() {
        BinaryObjectBuilder b = binary.builder("Trade");
        b.setField("price", 1.5).build();
        assertThatThrownBy(() -> binary.builder("Trade").setField("price", 15L))
                .isInstanceOf(BinaryTypeMismatchException.class)
                .hasMessageContaining("price").hasMessageContaining("Trade")
                .hasMessageContaining("double").hasMessageContaining("long");
        assertThatThrownBy(() -> binary.builder("Trade").setField("price", "x", String.class))
                .isInstanceOf(BinaryTypeMismatchException.class);
        BinaryObject withNull = binary.builder("Trade").setField("price", null).build();
        assertThat(withNull.hasField("price")).isTrue();
        assertThat(withNull.<Object>field("price")).isNull();
    }

    @Test
    void aFieldFirstSetToNullTakesTheTypeOfItsFirstValue() {
        binary.builder("Late").setField("v", null).build();
        assertThat(binary.type("Late").fieldTypeName("v")).isEqualTo("unknown");
        binary.builder("Late").setField("v", "text").build();
        assertThat(binary.type("Late").fieldTypeName("v")).isEqualTo("String");
        assertThatThrownBy(() -> binary.builder("Late").setField("v", 1))
                .isInstanceOf(BinaryTypeMismatchException.class);
        binary.builder("Typed").setField("n", null, Long.class).build();
        assertThat(binary.type("Typed").fieldTypeName("n")).isEqualTo("long");
    }

    @Test
    void aFailedSetLeavesTheBuilderUsable() {
        BinaryObjectBuilder b = binary.builder("Safe").setField("n", 1L);
        b.build();
        b.setField("n", 2L);
        assertThatThrownBy(() -> b.setField("m", "x").setField("n", "wrong"))
                .isInstanceOf(BinaryTypeMismatchException.class);
        BinaryObject o = b.build();
        assertThat(o.<Long>field("n")).isEqualTo(2L);
        assertThat(o.<String>field("m")).isEqualTo("x");
    }

    @Test
    void reusingABuilderAllocatesOnlyTheResult() {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        BinaryObjectBuilder b = binary.builder("Alloc");
        String sec = "SBER";
        for (int i = 0; i < 20_000; i++) {
            b.setField("secCode", sec).setLong("quantity", i).setDouble("price", i * 0.5).setInt("lots", i)
                    .setBoolean("mm", (i & 1) == 0).build();
        }
        BinaryObject sample = b.setField("secCode", sec).setLong("quantity", 7).setDouble("price", 3.5)
                .setInt("lots", 7).setBoolean("mm", true).build();
        assertThat(sample.<Long>field("quantity")).isEqualTo(7L);
        assertThat(sample.<Double>field("price")).isEqualTo(3.5);
        assertThat(sample.<Integer>field("lots")).isEqualTo(7);
        assertThat(sample.<Boolean>field("mm")).isTrue();
        int objectSize = sample.toBytes().length;
        long before = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
        int n = 20_000;
        for (int i = 0; i < n; i++) {
            b.setField("secCode", sec).setLong("quantity", i).setDouble("price", i * 0.5).setInt("lots", i)
                    .setBoolean("mm", (i & 1) == 0).build();
        }
        long perObject = (threads.getThreadAllocatedBytes(Thread.currentThread().getId()) - before) / n;
        // the result is its byte[] (16-byte header + bytes, 8-aligned) and the flyweight (~40 bytes)
        assertThat(perObject).as("bytes allocated per build of a %d-byte object", objectSize)
                .isLessThanOrEqualTo(objectSize + 16 + 8 + 48);
    }
}
