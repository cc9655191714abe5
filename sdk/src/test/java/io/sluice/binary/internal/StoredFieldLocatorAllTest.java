package io.sluice.binary.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.binary.BinaryObject;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link StoredFieldLocator#locateAll}: the fields of several indexes looked for in one parse of an object's header
 * give, field by field, what a locator of that field alone gives, whatever the value: fields present or missing,
 * values of fixed and variable length, nested objects, collections, one- and two-byte offsets, schemas and types
 * changing from value to value, and bytes that are not an object at all.
 */
class StoredFieldLocatorAllTest {

    private final BinaryContext binary = new BinaryContext();
    /** The fields of the specs [name, a], [inner], [a, missing], [tags, blob, when], deduplicated. */
    private final List<String> fields = List.of("name", "a", "inner", "missing", "tags", "blob", "when");

    @Test
    void everyFieldLocatedInOnePassEqualsItLocatedAlone() {
        BinaryObject inner = binary.builder("Inner").setField("x", 5).setField("s", "deep").build();
        List<byte[]> values = new ArrayList<>();
        values.add(binary.builder("Order").setField("name", "SEC1").setField("a", 42L).setField("inner", inner)
                .setField("tags", List.of("t1", "t2")).setField("blob", new byte[] {1, 2, 3})
                .setField("when", 1.5d).build().toBytes());
        values.add(binary.builder("Order").setField("a", -7L).setField("other", "x").build().toBytes()); // no name
        values.add(binary.builder("Order").setField("name", "y".repeat(300)).setField("tags", List.of("z"))
                .setField("when", 3.0d).build().toBytes()); // two-byte offsets
        values.add(binary.builder("Order").setField("name", "").setField("a", 5L).setField("inner", null)
                .build().toBytes());
        values.add(binary.builder("Other").setField("missing", 1).setField("blob", new byte[0])
                .setField("tags", Map.of("k", 1)).build().toBytes()); // another type: a map under tags
        values.add(binary.builder("Order").setField("name", "SEC2").setField("a", 43L).setField("inner", inner)
                .setField("tags", List.of()).setField("blob", new byte[] {9}).setField("when", 2.5d).build()
                .toBytes()); // the first schema again
        StoredFieldLocator all = new StoredFieldLocator(binary, fields);
        long[] ranges = new long[fields.size() + 1];
        for (int round = 0; round < 2; round++) { // the second time every schema is a remembered or a switched one
            for (byte[] value : values) {
                byte[] stored = new byte[value.length + 9]; // inside a larger array, as a row's bytes are
                System.arraycopy(value, 0, stored, 6, value.length);
                ranges[fields.size()] = 77;
                assertThat(all.locateAll(stored, 6, value.length, ranges)).isTrue();
                for (int f = 0; f < fields.size(); f++) {
                    long alone = new StoredFieldLocator(binary, fields.get(f)).locate(stored, 6, value.length);
                    assertThat(ranges[f]).as(fields.get(f)).isEqualTo(alone);
                }
                assertThat(ranges[fields.size()]).as("past the fields: untouched").isEqualTo(77);
                assertThat(all.locate(stored, 6, value.length)).isEqualTo(ranges[0]);
            }
        }
        // a few values known by hand: the first value's name and a, the second's lack of name
        assertThat(all.locateAll(values.get(0), 0, values.get(0).length, ranges)).isTrue();
        assertThat(Arrays.copyOfRange(values.get(0), StoredFieldLocator.start(ranges[0]),
                StoredFieldLocator.end(ranges[0]))).containsExactly(0x09, 'S', 'E', 'C', '1', 0x00);
        assertThat(ranges[3]).isEqualTo(-1); // "missing"
        all.locateAll(values.get(1), 0, values.get(1).length, ranges);
        assertThat(ranges[0]).isEqualTo(-1);
        assertThat(ranges[1]).isNotNegative();
    }

    @Test
    void bytesThatAreNoReadableObjectLeaveEveryFieldNotFound() {
        byte[] object = binary.builder("Order").setField("name", "SEC1").setField("a", 1).build().toBytes();
        StoredFieldLocator all = new StoredFieldLocator(binary, fields);
        long[] ranges = new long[fields.size()];
        List<byte[]> bad = List.of(new byte[] {0x05, (byte) 0x80, 0, 0, 1}, new byte[0],
                Arrays.copyOf(object, object.length - 1),
                new BinaryContext().builder("Order").setField("name", "z").build().toBytes()); // unknown type here
        for (byte[] b : bad) {
            Arrays.fill(ranges, 0);
            assertThat(all.locateAll(b, 0, b.length, ranges)).isFalse();
            assertThat(ranges).containsOnly(-1L);
            for (String f : fields) {
                assertThat(new StoredFieldLocator(binary, f).locate(b, 0, b.length)).isEqualTo(-1);
            }
        }
    }
}
