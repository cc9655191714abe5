package io.sluice.connect.kafka.internal;

import io.sluice.binary.BinaryObject;
import io.sluice.binary.BinaryTypeMismatchException;
import io.sluice.binary.internal.BinaryContext;
import io.sluice.connect.kafka.SinkConfigAccess;
import org.apache.kafka.common.serialization.LongSerializer;
import org.apache.kafka.connect.converters.LongConverter;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RecordConverterTest {

    private static final Schema LEG = SchemaBuilder.struct().name("Leg").field("venue", Schema.STRING_SCHEMA).build();
    private static final Schema ORDER = SchemaBuilder.struct().name("StockOrder")
            .field("id", Schema.INT64_SCHEMA)
            .field("symbol", Schema.STRING_SCHEMA)
            .field("price", Decimal.schema(2))
            .field("qty", Schema.INT32_SCHEMA)
            .field("note", Schema.OPTIONAL_STRING_SCHEMA)
            .field("at", Timestamp.SCHEMA)
            .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).build())
            .field("leg", LEG)
            .build();

    private final BinaryContext binary = new BinaryContext();

    private RecordConverter converter(String... kv) {
        Map<String, String> p = new HashMap<>();
        p.put("sluice.addresses", "127.0.0.1:10800");
        for (int i = 0; i < kv.length; i += 2) {
            p.put(kv[i], kv[i + 1]);
        }
        return new RecordConverter(SinkConfigAccess.conversionSettings(p), binary);
    }

    private static SinkRecord record(Object key, Schema valueSchema, Object value) {
        return new SinkRecord("orders", 3, null, key, valueSchema, value, 42);
    }

    private static Struct order(long id) {
        return new Struct(ORDER).put("id", id).put("symbol", "ACME").put("price", new BigDecimal("12.34"))
                .put("qty", 7).put("at", java.util.Date.from(Instant.ofEpochMilli(1_000)))
                .put("tags", List.of("a", "b")).put("leg", new Struct(LEG).put("venue", "XNAS"));
    }

    @Test
    void structsBecomeBinaryObjectsWithTheirConnectTypes() {
        RecordConverter.Converted c = converter("sluice.value.type.name", "${schema}").convert(record("k1", ORDER, order(5)));
        assertThat(c.action).isEqualTo(RecordConverter.Action.PUT);
        assertThat(c.key).isEqualTo("k1");
        BinaryObject o = (BinaryObject) c.value;
        assertThat(o.type().typeName()).isEqualTo("StockOrder");
        assertThat((Long) o.field("id")).isEqualTo(5L);
        assertThat((BigDecimal) o.field("price")).isEqualByComparingTo("12.34");
        assertThat((Integer) o.field("qty")).isEqualTo(7);
        assertThat(o.hasField("note")).isTrue();
        assertThat((String) o.field("note")).isNull();
        assertThat((Instant) o.field("at")).isEqualTo(Instant.ofEpochMilli(1_000));
        assertThat((List<Object>) o.field("tags")).containsExactly("a", "b");
        BinaryObject leg = o.field("leg");
        assertThat(leg.type().typeName()).isEqualTo("StockOrder.leg");
        assertThat((String) leg.field("venue")).isEqualTo("XNAS");
    }

    @Test
    void schemalessMapsAndJsonTextBecomeBinaryObjectsOfTheConfiguredType() {
        RecordConverter conv = converter();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", 1L);
        m.put("symbol", "ACME");
        m.put("skipped", null);
        m.put("nested", Map.of("x", 1L));
        BinaryObject fromMap = (BinaryObject) conv.convert(record("k", null, m)).value;
        assertThat(fromMap.type().typeName()).isEqualTo("orders");
        assertThat((Long) fromMap.field("id")).isEqualTo(1L);
        assertThat(fromMap.hasField("skipped")).isFalse();
        assertThat(((BinaryObject) fromMap.field("nested")).type().typeName()).isEqualTo("orders.nested");

        BinaryObject fromJson = (BinaryObject) conv.convert(record("k", Schema.STRING_SCHEMA,
                "{\"id\":2,\"symbol\":\"X\"}")).value;
        assertThat((Long) fromJson.field("id")).isEqualTo(2L);
        BinaryObject fromBytes = (BinaryObject) converter("sluice.value.bytes.format", "JSON").convert(record("k", null,
                "{\"id\":3}".getBytes(StandardCharsets.UTF_8))).value;
        assertThat((Long) fromBytes.field("id")).isEqualTo(3L);
    }

    @Test
    void bytesAndTextAreStoredAsTheyAreOnlyWhenTheConfigAsks() {
        assertThat((byte[]) converter().convert(record("k", null, new byte[] {1, 2})).value).containsExactly(1, 2);
        // BYTES does not read the bytes: a JSON array stays those bytes
        byte[] array = "[1,2,3]".getBytes(StandardCharsets.UTF_8);
        assertThat((byte[]) converter().convert(record("k", Schema.OPTIONAL_BYTES_SCHEMA, array)).value).isEqualTo(array);
        assertThat(converter("sluice.value.string.format", "STRING").convert(record("k", null, "hi")).value)
                .isEqualTo("hi");
    }

    @Test
    void arraysNumbersAndBooleansAreErrantNamingWhatTheValueIs() {
        // as JsonConverter (schemas.enable=false) gives [1,2,3], 42, 1.5 and true
        assertThatThrownBy(() -> converter().convert(record("k", null, List.of(1L, 2L, 3L))))
                .isInstanceOf(ConversionException.class).hasMessageContaining("the value is an array")
                .hasMessageContaining("not an object");
        assertThatThrownBy(() -> converter().convert(record("k", null, 42L)))
                .isInstanceOf(ConversionException.class).hasMessageContaining("the value is a number");
        assertThatThrownBy(() -> converter().convert(record("k", null, 1.5)))
                .isInstanceOf(ConversionException.class).hasMessageContaining("the value is a number");
        assertThatThrownBy(() -> converter().convert(record("k", null, true)))
                .isInstanceOf(ConversionException.class).hasMessageContaining("the value is a boolean");
        // a schema does not change the rule (LongConverter values, an int64 or array schema)
        assertThatThrownBy(() -> converter().convert(record("k", Schema.OPTIONAL_INT64_SCHEMA, 42L)))
                .isInstanceOf(ConversionException.class).hasMessageContaining("the value is a number");
        assertThatThrownBy(() -> converter().convert(record("k", SchemaBuilder.array(Schema.INT64_SCHEMA).build(),
                List.of(1L)))).isInstanceOf(ConversionException.class).hasMessageContaining("the value is an array");
        // even with STRING or BYTES kept for text and bytes
        assertThatThrownBy(() -> converter("sluice.value.string.format", "STRING").convert(record("k", null, 42L)))
                .isInstanceOf(ConversionException.class).hasMessageContaining("not an object");
    }

    @Test
    void jsonTextOrBytesThatIsNotOneObjectIsErrantNamingWhatItIs() {
        for (String[] c : new String[][] {{"[1,2,3]", "a JSON array"}, {"42", "a JSON number"}, {"1.5", "a JSON number"},
                {"true", "a JSON boolean"}, {"\"text\"", "a JSON string"}, {"null", "JSON null"}}) {
            assertThatThrownBy(() -> converter().convert(record("k", Schema.STRING_SCHEMA, c[0])))
                    .as(c[0]).isInstanceOf(ConversionException.class)
                    .hasMessageContaining("the value is " + c[1] + ", not a JSON object")
                    .hasMessageContaining("sluice.value.string.format=JSON");
            assertThatThrownBy(() -> converter("sluice.value.bytes.format", "JSON").convert(record("k", null,
                    c[0].getBytes(StandardCharsets.UTF_8))))
                    .as(c[0]).isInstanceOf(ConversionException.class)
                    .hasMessageContaining("the value is " + c[1] + ", not a JSON object")
                    .hasMessageContaining("sluice.value.bytes.format=JSON");
        }
    }

    @Test
    void longConverterKeysAreLongKeys() {
        LongConverter keys = new LongConverter();
        keys.configure(Map.of(), true);
        byte[] serialized = new LongSerializer().serialize("orders", 42L);
        SchemaAndValue key = keys.toConnectData("orders", serialized);
        RecordConverter.Converted c = converter().convert(new SinkRecord("orders", 0, key.schema(), key.value(), null,
                Map.of("id", 42L), 7));
        assertThat(c.key).isInstanceOf(Long.class).isEqualTo(42L);
        assertThat((Long) ((BinaryObject) c.value).field("id")).isEqualTo(42L);
    }

    @Test
    void aFieldWhoseTypeChangesIsRefusedAndTheNextRecordIsClean() {
        RecordConverter conv = converter();
        conv.convert(record("k", null, Map.of("id", 1L)));
        Map<String, Object> bad = new LinkedHashMap<>();
        bad.put("other", "x");
        bad.put("id", "text");
        assertThatThrownBy(() -> conv.convert(record("k", null, bad))).isInstanceOf(BinaryTypeMismatchException.class);
        BinaryObject next = (BinaryObject) conv.convert(record("k", null, Map.of("id", 2L))).value;
        assertThat(next.hasField("other")).as("nothing of the failed record leaks into the next").isFalse();
    }

    @Test
    void nullValuesDeleteIgnoreOrFail() {
        assertThat(converter().convert(record("k", null, null)).action).isEqualTo(RecordConverter.Action.REMOVE);
        assertThat(converter("behavior.on.null.values", "IGNORE").convert(record("k", null, null)).action)
                .isEqualTo(RecordConverter.Action.SKIP);
        assertThatThrownBy(() -> converter("behavior.on.null.values", "FAIL").convert(record("k", null, null)))
                .isInstanceOf(ConversionException.class).hasMessageContaining("behavior.on.null.values");
    }

    @Test
    void nullKeysFailIgnoreOrUseThePosition() {
        assertThatThrownBy(() -> converter().convert(record(null, null, Map.of("id", 1L))))
                .isInstanceOf(ConversionException.class).hasMessageContaining("behavior.on.null.keys");
        assertThat(converter("behavior.on.null.keys", "IGNORE").convert(record(null, null, Map.of("id", 1L))).action)
                .isEqualTo(RecordConverter.Action.SKIP);
        assertThat(converter("behavior.on.null.keys", "TOPIC_PARTITION_OFFSET").convert(record(null, null, Map.of("id", 1L))).key)
                .isEqualTo("orders/3/42");
    }

    @Test
    void keysFromValueFieldsAndStructKeys() {
        assertThat(converter("sluice.key.mode", "VALUE_FIELDS", "sluice.key.fields", "id")
                .convert(record(null, ORDER, order(9))).key).isEqualTo(9L);
        BinaryObject composite = (BinaryObject) converter("sluice.key.mode", "VALUE_FIELDS",
                "sluice.key.fields", "symbol,id").convert(record(null, ORDER, order(9))).key;
        assertThat(composite.type().typeName()).isEqualTo("orders.Key");
        assertThat((String) composite.field("symbol")).isEqualTo("ACME");
        assertThat((Long) composite.field("id")).isEqualTo(9L);
        Schema keySchema = SchemaBuilder.struct().name("K").field("a", Schema.INT32_SCHEMA).build();
        BinaryObject structKey = (BinaryObject) converter().convert(
                new SinkRecord("orders", 0, keySchema, new Struct(keySchema).put("a", 1), null, Map.of("id", 1L), 0)).key;
        assertThat((Integer) structKey.field("a")).isEqualTo(1);
        assertThat(converter("sluice.key.mode", "TOPIC_PARTITION_OFFSET").convert(record("k", null, Map.of("id", 1L))).key)
                .isEqualTo("orders/3/42");
    }

    @Test
    void theSchemaLayoutIsWorkedOutOncePerSchema() {
        RecordConverter conv = converter();
        for (int i = 0; i < 1000; i++) {
            BinaryObject o = (BinaryObject) conv.convert(record("k" + i, ORDER, order(i))).value;
            assertThat((Long) o.field("id")).isEqualTo(i);
        }
    }
}
