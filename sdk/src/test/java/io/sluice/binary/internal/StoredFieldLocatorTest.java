package io.sluice.binary.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.binary.BinaryObject;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** A field's stored bytes found from an encoded object's footer, and "not found" for everything else. */
class StoredFieldLocatorTest {

    private final BinaryContext binary = new BinaryContext();

    @Test
    void findsEachFieldsTaggedValueInsideALargerArray() {
        byte[] object = binary.builder("Point").setField("x", 1).setField("y", -2L).setField("label", "a").build()
                .toBytes();
        byte[] stored = new byte[object.length + 7];
        System.arraycopy(object, 0, stored, 5, object.length);
        assertThat(slice(stored, 5, object.length, "x")).containsExactly(0x05, 0x80, 0, 0, 1);
        assertThat(slice(stored, 5, object.length, "label")).containsExactly(0x09, 'a', 0x00); // the last field
        assertThat(new StoredFieldLocator(binary, "z").locate(stored, 5, object.length)).isEqualTo(-1);
    }

    @Test
    void readsTwoByteOffsetsOfAWideObject() {
        BinaryObject wide = binary.builder("Wide").setField("text", "x".repeat(250)).setField("n", 7).build();
        byte[] b = wide.toBytes();
        assertThat(b[1]).isEqualTo((byte) 0x21);
        assertThat(slice(b, 0, b.length, "n")).containsExactly(0x05, 0x80, 0, 0, 7);
    }

    @Test
    void answersNotFoundForNonObjectsUnknownSchemasAndTruncatedBytes() {
        byte[] object = binary.builder("Point").setField("x", 1).build().toBytes();
        StoredFieldLocator x = new StoredFieldLocator(binary, "x");
        assertThat(x.locate(new byte[] {0x05, (byte) 0x80, 0, 0, 1}, 0, 5)).isEqualTo(-1);
        assertThat(x.locate(object, 0, object.length - 1)).isEqualTo(-1);
        assertThat(new StoredFieldLocator(new BinaryContext(), "x").locate(object, 0, object.length)).isEqualTo(-1);
        assertThat(x.locate(new byte[0], 0, 0)).isEqualTo(-1);
    }

    private byte[] slice(byte[] b, int offset, int length, String field) {
        long r = new StoredFieldLocator(binary, field).locate(b, offset, length);
        assertThat(r).as("range of " + field).isNotNegative();
        return Arrays.copyOfRange(b, StoredFieldLocator.start(r), StoredFieldLocator.end(r));
    }
}
