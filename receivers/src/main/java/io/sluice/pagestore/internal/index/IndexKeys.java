package io.sluice.pagestore.internal.index;

import io.sluice.binary.internal.BinaryContext;
import io.sluice.binary.internal.StoredFieldLocator;
import java.util.List;

/**
 * Makes an entry's index key from its bytes, without decoding the value: each indexed field's stored bytes
 * (tag and payload, as the binary format encodes them: self-delimiting, and ordered for the ordered types) in
 * index order, then the entry's key bytes. A value that is not a binary object of a known schema, or whose
 * schema lacks the first field, has no index key; a missing later field is encoded as NULL (tag 00).
 * Used under the partition's write lock (it keeps the fields' ranges of the entry at hand).
 */
final class IndexKeys {

    /** The NULL tag, for a missing later field of a composite index. */
    private static final byte NULL = 0x00;

    private final StoredFieldLocator[] fields;
    private final long[] ranges;

    IndexKeys(BinaryContext binary, List<String> names) {
        fields = new StoredFieldLocator[names.size()];
        for (int i = 0; i < fields.length; i++) {
            fields[i] = new StoredFieldLocator(binary, names.get(i));
        }
        ranges = new long[fields.length];
    }

    /**
     * Appends the entry's index key as a change to {@code ops}.
     *
     * @return the change's number, or -1 if the entry has no index key (nothing appended)
     */
    int append(IndexOps ops, byte kind, long link, byte[] key, int keyOffset, int keyLength, byte[] value,
               int valueOffset, int valueLength) {
        int size = keyLength;
        for (int i = 0; i < fields.length; i++) {
            long r = fields[i].locate(value, valueOffset, valueLength);
            if (r < 0 && i == 0) {
                return -1;
            }
            ranges[i] = r;
            size += r < 0 ? 1 : StoredFieldLocator.end(r) - StoredFieldLocator.start(r);
        }
        int at = ops.open(size);
        byte[] out = ops.bytes();
        for (int i = 0; i < fields.length; i++) {
            long r = ranges[i];
            if (r < 0) {
                out[at++] = NULL;
            } else {
                int s = StoredFieldLocator.start(r);
                int n = StoredFieldLocator.end(r) - s;
                System.arraycopy(value, s, out, at, n);
                at += n;
            }
        }
        System.arraycopy(key, keyOffset, out, at, keyLength);
        return ops.commit(kind, link);
    }
}
