package io.sluice.pagestore.internal.index;

import java.util.List;

/**
 * One field index of a cache, as its partitions keep it: a stable id and the indexed fields in index order
 * (ascending; the first field decides which entries are in the index).
 *
 * @param id     stable per cache, assigned by the node in declaration order and never reused
 * @param fields the binary-object field names, at least one, in index order
 */
public record IndexSpec(int id, List<String> fields) {

    /**
     * @throws IllegalArgumentException if the id is negative, there are no fields, or a field name is empty
     * @throws NullPointerException     if fields or one of them is null
     */
    public IndexSpec {
        fields = List.copyOf(fields);
        if (id < 0) {
            throw new IllegalArgumentException("index id " + id + " is negative");
        }
        if (fields.isEmpty()) {
            throw new IllegalArgumentException("index " + id + " names no field");
        }
        for (String f : fields) {
            if (f.isEmpty()) {
                throw new IllegalArgumentException("index " + id + " names an empty field: " + fields);
            }
        }
    }
}
