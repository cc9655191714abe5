package io.sluice.pagestore.internal.index;

import io.sluice.binary.internal.BinaryContext;
import io.sluice.binary.internal.StoredFieldLocator;
import java.util.ArrayList;
import java.util.List;

/**
 * The fields a partition's indexes read from an entry's value, each named once (two indexes on {@code account}
 * share it), so that one parse of the value's object header locates them all ({@link StoredFieldLocator#locateAll}),
 * and, per index, where each of its fields is in that list. Immutable; replaced with the partition's index trees.
 */
final class IndexedFields {

    static final IndexedFields NONE = new IndexedFields(null, new int[0][], 0);

    private final StoredFieldLocator locator;
    /** Per index (the partition's tree order), per field of it in index order: its position in the located list. */
    private final int[][] slots;
    private final int count;

    private IndexedFields(StoredFieldLocator locator, int[][] slots, int count) {
        this.locator = locator;
        this.slots = slots;
        this.count = count;
    }

    /** The fields of these indexes (in this order), deduplicated. */
    static IndexedFields of(BinaryContext binary, IndexSpec[] specs) {
        if (specs.length == 0) {
            return NONE;
        }
        List<String> names = new ArrayList<>();
        int[][] slots = new int[specs.length][];
        for (int i = 0; i < specs.length; i++) {
            List<String> fields = specs[i].fields();
            slots[i] = new int[fields.size()];
            for (int f = 0; f < fields.size(); f++) {
                int at = names.indexOf(fields.get(f));
                if (at < 0) {
                    at = names.size();
                    names.add(fields.get(f));
                }
                slots[i][f] = at;
            }
        }
        return new IndexedFields(new StoredFieldLocator(binary, names), slots, names.size());
    }

    /** Distinct fields: how long {@link #locate}'s ranges must be. */
    int count() {
        return count;
    }

    /** Index {@code index}'s fields' positions in the ranges {@link #locate} fills. */
    int[] slots(int index) {
        return slots[index];
    }

    /**
     * Locates every field in the value (one header parse): {@code ranges[i]} as {@link StoredFieldLocator#locate}
     * gives it, -1 for a field the value lacks or a value that is no readable object.
     */
    void locate(byte[] value, int offset, int length, long[] ranges) {
        if (locator != null) {
            locator.locateAll(value, offset, length, ranges);
        }
    }
}
