package io.sluice.binary;

import io.sluice.binary.internal.BinaryContext;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TypeMetadataExchangeTest {

    record Quote(String symbol, double bid, double ask) {
    }

    @Test
    void objectsBuiltInOneContextDecodeInAnotherAfterImportingItsTypes() {
        BinaryContext client = new BinaryContext();
        BinaryObject order = client.builder("StockOrder").setField("secCode", "SBER").setLong("quantity", 5)
                .setField("note", null).setField("legs", List.of(1, 2)).build();
        byte[] quote = client.toBinary(new Quote("GAZP", 1.5, 1.75)).toBytes();
        byte[] orderBytes = order.toBytes();

        BinaryContext node = new BinaryContext();
        assertThatThrownBy(() -> node.decode(orderBytes, 0, orderBytes.length, true))
                .isInstanceOf(BinaryFormatException.class).hasMessageContaining("unknown type id");
        node.importTypes(client.exportTypes());

        BinaryObject read = (BinaryObject) node.decode(orderBytes, 0, orderBytes.length, true);
        assertThat(read.<String>field("secCode")).isEqualTo("SBER");
        assertThat(read.<Long>field("quantity")).isEqualTo(5L);
        assertThat(read.type().fieldTypeName("note")).isEqualTo("unknown");
        assertThat(node.decode(quote, 0, quote.length, false)).isEqualTo(new Quote("GAZP", 1.5, 1.75));
        assertThatThrownBy(() -> node.builder("StockOrder").setField("quantity", "five"))
                .isInstanceOf(BinaryTypeMismatchException.class);
        // importing again, or what the node already knows, changes nothing
        long version = node.typesVersion();
        node.importTypes(client.exportTypes());
        node.importTypes(node.exportTypes());
        assertThat(node.typesVersion()).isEqualTo(version);
    }

    @Test
    void anObjectWhoseClassCannotBeLoadedDecodesAsABinaryObject() {
        BinaryContext binary = new BinaryContext();
        io.sluice.binary.internal.GrowableBuffer out = new io.sluice.binary.internal.GrowableBuffer(64);
        binary.encode(List.of(List.of("Ghost", "com.example.NoSuchClass", List.of(List.of("x", 5, false)),
                List.of(List.of("x")))), out);
        binary.importTypes(out.toByteArray());
        assertThat(binary.type("Ghost").fieldTypeName("x")).isEqualTo("int");
        assertThatThrownBy(() -> binary.builder("Ghost").setField("x", null))
                .isInstanceOf(BinaryTypeMismatchException.class).hasMessageContaining("null");
        byte[] bytes = binary.builder("Ghost").setInt("x", 3).build().toBytes();
        Object decoded = binary.decode(bytes, 0, bytes.length, false);
        assertThat(decoded).isInstanceOf(BinaryObject.class);
        assertThat(((BinaryObject) decoded).<Integer>field("x")).isEqualTo(3);
    }

    @Test
    void theVersionGrowsWithEveryNewTypeFieldOrSchema() {
        BinaryContext binary = new BinaryContext();
        long v0 = binary.typesVersion();
        BinaryObjectBuilder b = binary.builder("V");
        long v1 = binary.typesVersion();
        b.setField("a", 1).build();
        long v2 = binary.typesVersion();
        b.setField("a", 2).build();
        long v3 = binary.typesVersion();
        b.setField("b", 2).setField("a", 1).build();
        long v4 = binary.typesVersion();
        assertThat(v1).isGreaterThan(v0);
        assertThat(v2).isGreaterThan(v1);
        assertThat(v3).isEqualTo(v2);
        assertThat(v4).isGreaterThan(v3);
    }

    @Test
    void conflictingOrMalformedMetadataIsRefused() {
        BinaryContext a = new BinaryContext();
        a.builder("T").setField("x", 1L).build();
        BinaryContext b = new BinaryContext();
        b.builder("T").setField("x", "text").build();
        assertThatThrownBy(() -> b.importTypes(a.exportTypes())).isInstanceOf(BinaryTypeMismatchException.class)
                .hasMessageContaining("'x'").hasMessageContaining("String").hasMessageContaining("long");
        assertThatThrownBy(() -> b.importTypes(new byte[]{0x06, 0, 0, 0, 0, 0, 0, 0, 1}))
                .isInstanceOf(BinaryFormatException.class).hasMessageContaining("not a list");
        assertThatThrownBy(() -> b.importTypes(new byte[]{0x19, 0, 0}))
                .isInstanceOf(BinaryFormatException.class);
    }
}
