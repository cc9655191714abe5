package io.sluice.connect.kafka.internal;

import io.sluice.binary.BinaryObject;
import io.sluice.binary.BinaryTypeMismatchException;
import io.sluice.binary.internal.BinaryContext;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JsonValuesTest {

    private final BinaryContext binary = new BinaryContext();
    private final JsonValues json = new JsonValues(new BinaryValues(binary));

    @Test
    void readsAsBinaryFromJsonDoes() {
        String text = "{\"id\":7,\"big\":123456789012345678901234567890,\"price\":1.5,\"ok\":true,\"no\":false,"
                + "\"note\":null,\"tags\":[\"a\",1,2.5,null,{\"x\":1}],\"leg\":{\"venue\":\"XNAS\",\"lots\":[1,2]}}";
        BinaryObject streamed = json.fromJson(text.getBytes(StandardCharsets.UTF_8), "T");
        assertThat((Long) streamed.field("id")).isEqualTo(7L);
        assertThat((BigInteger) streamed.field("big")).isEqualTo(new BigInteger("123456789012345678901234567890"));
        assertThat((Double) streamed.field("price")).isEqualTo(1.5);
        assertThat((Boolean) streamed.field("ok")).isTrue();
        assertThat((Boolean) streamed.field("no")).isFalse();
        assertThat(streamed.hasField("note")).isFalse();
        List<Object> tags = streamed.field("tags");
        assertThat(tags.subList(0, 4)).containsExactly("a", 1L, 2.5, null);
        assertThat(((BinaryObject) tags.get(4)).type().typeName()).isEqualTo("T.tags");
        BinaryObject leg = streamed.field("leg");
        assertThat(leg.type().typeName()).isEqualTo("T.leg");
        assertThat((List<Object>) leg.field("lots")).containsExactly(1L, 2L);

        BinaryObject tree = binary.fromJson("{\"id\":7,\"price\":1.5,\"ok\":true}", "U");
        BinaryObject same = json.fromJson("{\"id\":7,\"price\":1.5,\"ok\":true}", "U");
        assertThat(same).as("the same bytes as the SDK's fromJson").isEqualTo(tree);
    }

    @Test
    void refusesWhatIsNotOneJsonObject() {
        assertThatThrownBy(() -> json.fromJson("[1,2]", "T")).isInstanceOf(ConversionException.class)
                .hasMessageContaining("not a JSON object");
        assertThatThrownBy(() -> json.fromJson("{\"a\":1", "T")).isInstanceOf(ConversionException.class);
        assertThatThrownBy(() -> json.fromJson("{\"a\":1} {}", "T")).isInstanceOf(ConversionException.class);
        assertThatThrownBy(() -> json.fromJson("", "T")).isInstanceOf(ConversionException.class);
    }

    @Test
    void aFailedObjectLeavesNothingInTheNextOne() {
        json.fromJson("{\"id\":1}", "T");
        assertThatThrownBy(() -> json.fromJson("{\"extra\":\"x\",\"id\":\"text\"}", "T"))
                .isInstanceOf(BinaryTypeMismatchException.class);
        BinaryObject next = json.fromJson("{\"id\":2}", "T");
        assertThat(next.hasField("extra")).isFalse();
        assertThat((Long) next.field("id")).isEqualTo(2L);
    }
}
