package io.sluice.samples.load;

import io.sluice.samples.StockOrder;
import org.junit.jupiter.api.Test;

import java.lang.reflect.RecordComponent;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class StockOrderFieldsTest {

    @Test
    void fieldsEqualStockOrderForKeyAndNamesAreTheRecordComponents() throws Exception {
        RecordComponent[] components = StockOrder.class.getRecordComponents();
        assertThat(components).extracting(RecordComponent::getName).containsExactly(StockOrderFields.NAMES);
        long seed = 7;
        Random random = new Random(seed);
        for (int i = 0; i < 5_000; i++) {
            long key = i < 1_000 ? i : random.nextLong() & Long.MAX_VALUE;
            StockOrder order = StockOrder.forKey(key);
            for (RecordComponent c : components) {
                assertThat(StockOrderFields.expected(key, c.getName()))
                        .as("field %s of key %d (seed %d)", c.getName(), key, seed)
                        .isEqualTo(c.getAccessor().invoke(order));
            }
        }
    }

    @Test
    void differenceNamesTheFirstFieldThatDiffers() {
        Map<String, Object> stored = new java.util.HashMap<>();
        for (String name : StockOrderFields.NAMES) {
            stored.put(name, StockOrderFields.expected(42, name));
        }
        assertThat(StockOrderFields.difference(42, stored::get, null)).isNull();
        stored.put("quantity", 7L);
        assertThat(StockOrderFields.difference(42, stored::get, null))
                .isEqualTo("key 42: field quantity is 7, expected 43");
        stored.put("quantity", 43L);
        assertThat(StockOrderFields.difference(42, stored::get, "xx"))
                .isEqualTo("key 42: field pad is null, expected 2 characters");
    }

    @Test
    void rawArenaReadsBackWhatItWroteAndOverwritesInPlace() {
        String pad = ValuePadding.padding(33);
        RawOrderArena arena = new RawOrderArena(10 * RawOrderArena.recordSize(99, pad));
        int first = arena.append(11, pad);
        int second = arena.append(20, null);
        assertThat(second).isEqualTo(RawOrderArena.recordSize(11, pad));
        assertThat(arena.used()).isEqualTo(second + RawOrderArena.recordSize(20, null));
        assertThat(StockOrderFields.difference(11, arena.read(first)::get, pad)).isNull();
        assertThat(StockOrderFields.difference(20, arena.read(second)::get, null)).isNull();
        assertThat(arena.read(second).get(StockOrderFields.PAD)).isNull();
        arena.overwrite(first, 11, pad);
        assertThat(StockOrderFields.difference(11, arena.read(first)::get, pad)).isNull();
    }

    @Test
    void paddingReachesTheTargetSize() {
        assertThat(RawLoad.padFor(0)).isNull();
        int natural = RawOrderArena.recordSize(0, null);
        assertThat(RawLoad.padFor(natural)).isNull();
        assertThat(RawOrderArena.recordSize(0, RawLoad.padFor(200))).isEqualTo(200);
        // A varint-like prefix that grows at 128 characters still converges.
        String pad = ValuePadding.padFor(300, "value", n -> n < 0 ? 50 : 52 + n + (n >= 128 ? 1 : 0));
        assertThat(52 + pad.length() + 1).isEqualTo(300);
    }

    @Test
    void targetBelowTheNaturalSizeIsRejectedWithBothSizes() {
        int natural = RawOrderArena.recordSize(0, null);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> RawLoad.padFor(natural - 1))
                .isInstanceOf(ValuePadding.ValueSizeException.class)
                .hasMessage("--value-size is " + (natural - 1) + " bytes; the raw record takes " + natural
                        + " bytes without padding, so it must be 0 (natural size) or at least " + natural);
    }
}
