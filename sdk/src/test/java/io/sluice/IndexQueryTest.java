package io.sluice;

import io.sluice.binary.internal.BinaryContext;
import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.query.internal.IndexBounds;
import org.junit.jupiter.api.Test;

import java.util.HexFormat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** IndexQuery's rules and the bounds its values encode to (binary-format.md's ordered encoding). */
class IndexQueryTest {

    private final BinaryContext binary = new BinaryContext();

    private byte[] enc(Object... values) {
        GrowableBuffer buf = new GrowableBuffer(16);
        for (Object v : values) {
            binary.encode(v, buf);
        }
        return buf.toByteArray();
    }

    private static String hex(byte[] b) {
        return b == null ? null : HexFormat.of().formatHex(b);
    }

    @Test
    void equalityIsBothBoundsInclusive() {
        IndexBounds b = IndexBounds.of(IndexQuery.on("secCode").eq("SBER"), binary);
        assertThat(hex(b.lower())).isEqualTo("095342455200").isEqualTo(hex(b.upper()));
        assertThat(b.lowerInclusive()).isTrue();
        assertThat(b.upperInclusive()).isTrue();
    }

    @Test
    void noConditionIsOpen() {
        assertThat(IndexBounds.of(IndexQuery.on("a"), binary)).isEqualTo(IndexBounds.ALL);
    }

    @Test
    void rangeOnTheFieldAfterTheEqualityPrefix() {
        IndexBounds b = IndexBounds.of(IndexQuery.on("account", "price").eq("A").gt(10.0), binary);
        assertThat(hex(b.lower())).isEqualTo(hex(enc("A", 10.0)));
        assertThat(b.lowerInclusive()).isFalse();
        assertThat(hex(b.upper())).isEqualTo(hex(enc("A")));
        assertThat(b.upperInclusive()).isTrue();

        IndexBounds lt = IndexBounds.of(IndexQuery.on("price").lt(5L), binary);
        assertThat(lt.lower()).isNull();
        assertThat(hex(lt.upper())).isEqualTo(hex(enc(5L)));
        assertThat(lt.upperInclusive()).isFalse();

        IndexBounds between = IndexBounds.of(IndexQuery.on("price").between(1, 9), binary);
        assertThat(hex(between.lower())).isEqualTo(hex(enc(1)));
        assertThat(hex(between.upper())).isEqualTo(hex(enc(9)));
        assertThat(between.lowerInclusive() && between.upperInclusive()).isTrue();
    }

    @Test
    void boundsCompareWithTheKeysPrefix() {
        byte[] entryKey = enc(42L);
        IndexBounds eqA = IndexBounds.of(IndexQuery.on("account", "price").eq("A"), binary);
        assertThat(eqA.contains(concat(enc("A", 3.0), entryKey))).isTrue();
        assertThat(eqA.contains(concat(enc("AB", 3.0), entryKey))).as("a longer string is not equal").isFalse();
        assertThat(eqA.contains(concat(enc("", 3.0), entryKey))).isFalse();

        IndexBounds gt = IndexBounds.of(IndexQuery.on("account", "price").eq("A").gt(3.0), binary);
        assertThat(gt.contains(concat(enc("A", 3.0), entryKey))).isFalse();
        assertThat(gt.contains(concat(enc("A", 3.5), entryKey))).isTrue();
        assertThat(gt.contains(concat(enc("B", 4.0), entryKey))).isFalse();

        IndexBounds le = IndexBounds.of(IndexQuery.on("price").le(-1L), binary);
        assertThat(le.contains(concat(enc(-1L), entryKey))).isTrue();
        assertThat(le.contains(concat(enc(-2L), entryKey))).isTrue();
        assertThat(le.contains(concat(enc(0L), entryKey))).isFalse();
    }

    @Test
    void misuseIsRefused() {
        assertThatThrownBy(IndexQuery::on).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> IndexQuery.on("a", "a")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> IndexQuery.on("a").eq(1, 2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1 to 1 values");
        assertThatThrownBy(() -> IndexQuery.on("a").eq(1).gt(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no field is left");
        assertThatThrownBy(() -> IndexQuery.on("a").limit(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> IndexQuery.on("a").gt(null)).isInstanceOf(NullPointerException.class);
        assertThat(IndexQuery.on("a", "b").eq("x").between(1, 2).limit(5).toString())
                .isEqualTo("IndexQuery.on[a, b].eq[x].ge(1).le(2).limit(5)");
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] c = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }
}
