package io.sluice.samples.load;

import io.sluice.binary.BinaryObject;
import io.sluice.binary.internal.BinaryContext;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Value sizes and padding with the real binary encoding. */
class ValueSizingTest {

    @ParameterizedTest
    @EnumSource(ValueKind.class)
    void paddedValuesEncodeToTheTargetSize(ValueKind kind) {
        BinaryContext binary = new BinaryContext();
        for (int target : new int[]{200, 300, 1000, 4096}) {
            String pad = CacheLoad.padFor(binary, kind, target);
            assertThat(pad).as("%s at %d bytes", kind, target).isNotNull();
            assertThat(CacheLoad.encodedValueSize(binary, kind, 0, pad)).as("%s at %d bytes", kind, target)
                    .isEqualTo(target);
        }
        assertThat(CacheLoad.padFor(binary, kind, 0)).isNull();
    }

    @ParameterizedTest
    @EnumSource(ValueKind.class)
    void targetBelowTheNaturalSizeNamesBothSizes(ValueKind kind) {
        BinaryContext binary = new BinaryContext();
        int natural = CacheLoad.encodedValueSize(binary, kind, 0, null);
        assertThatThrownBy(() -> CacheLoad.padFor(binary, kind, natural - 1))
                .isInstanceOf(ValuePadding.ValueSizeException.class)
                .hasMessage("--value-size is " + (natural - 1) + " bytes; the " + kind.cliName()
                        + " StockOrder takes " + natural + " bytes without padding, so it must be 0 (natural size)"
                        + " or at least " + natural);
    }

    @ParameterizedTest
    @EnumSource(ValueKind.class)
    void valuesOfEitherKindReadBackAsTheKeysOrderFieldByField(ValueKind kind) {
        BinaryContext binary = new BinaryContext();
        ValueSource values = ValueSource.of(kind, binary, "pp");
        for (long key = 0; key < 300; key++) {
            Object value = values.value(key);
            BinaryObject stored = value instanceof BinaryObject b ? b : binary.toBinary(value);
            assertThat(StockOrderFields.difference(key, stored::field, "pp")).isNull();
            assertThat(StockOrderFields.difference(key, stored::field, "p")).isNotNull();
        }
    }
}
