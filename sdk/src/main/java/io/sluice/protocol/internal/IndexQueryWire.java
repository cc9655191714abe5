package io.sluice.protocol.internal;

import io.netty.buffer.ByteBuf;
import io.sluice.query.internal.IndexBounds;
import io.sluice.query.internal.IndexPage;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * INDEX_QUERY's request and answer (op 25) and the body of DESTROY_INDEX and CREATE_INDEX (ops 26, 27);
 * {@code docs/protocol.md} has the rows.
 *
 * <p>INDEX_QUERY request body:
 * <pre>
 * | size    | field                                                                             |
 * | string  | cache                                                                             |
 * | u8      | field count n (1..255)                                                            |
 * | n×string| the index's fields, in order                                                      |
 * | u8      | flags: bit 0 lower, bit 1 lower inclusive, bit 2 upper, bit 3 upper inclusive,    |
 * |         | bit 4 after, bit 5 partitions                                                     |
 * | [blob]  | lower bound (bit 0)                                                               |
 * | [blob]  | upper bound (bit 2)                                                               |
 * | [blob]  | after: the last index key of the previous page, exclusive (bit 4)                 |
 * | int32   | page size (1..4096; larger is taken as 4096)                                      |
 * | [int32 m, m×int32] | the partitions to read (bit 5; else every partition the node serves)   |
 * </pre>
 * Answer: {@code int32} n, n × (blob index key, {@code int32} key length k: the key is the index key's last k bytes,
 * blob value), {@code u8} more.
 */
public final class IndexQueryWire {

    /** Entries a page holds at most, whatever the client asks. */
    public static final int MAX_PAGE = 4096;

    private static final int LOWER = 1;
    private static final int LOWER_INCLUSIVE = 2;
    private static final int UPPER = 4;
    private static final int UPPER_INCLUSIVE = 8;
    private static final int AFTER = 16;
    private static final int PARTITIONS = 32;

    private IndexQueryWire() {
    }

    /**
     * An INDEX_QUERY request.
     *
     * @param after      the last index key of the previous page, or null
     * @param partitions the partitions to read, or null for all the node serves
     */
    public record Request(String cache, List<String> fields, IndexBounds bounds, byte[] after, int pageSize,
                          int[] partitions) {
    }

    public static void writeRequest(ByteBuf out, Request r) {
        Wire.writeString(out, r.cache());
        out.writeByte(r.fields().size());
        for (String f : r.fields()) {
            Wire.writeString(out, f);
        }
        IndexBounds b = r.bounds();
        int flags = (b.lower() != null ? LOWER : 0) | (b.lowerInclusive() ? LOWER_INCLUSIVE : 0)
                | (b.upper() != null ? UPPER : 0) | (b.upperInclusive() ? UPPER_INCLUSIVE : 0)
                | (r.after() != null ? AFTER : 0) | (r.partitions() != null ? PARTITIONS : 0);
        out.writeByte(flags);
        if (b.lower() != null) {
            Wire.writeBlob(out, b.lower(), 0, b.lower().length);
        }
        if (b.upper() != null) {
            Wire.writeBlob(out, b.upper(), 0, b.upper().length);
        }
        if (r.after() != null) {
            Wire.writeBlob(out, r.after(), 0, r.after().length);
        }
        out.writeInt(r.pageSize());
        if (r.partitions() != null) {
            out.writeInt(r.partitions().length);
            for (int p : r.partitions()) {
                out.writeInt(p);
            }
        }
    }

    /** @throws Wire.MalformedFrameException if the body does not follow the layout */
    public static Request readRequest(ByteBuf in) {
        String cache = Wire.readString(in, "cache name");
        int n = Wire.readByte(in, "field count");
        if (n == 0) {
            throw new Wire.MalformedFrameException("an index query names at least one field");
        }
        List<String> fields = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            fields.add(Wire.readString(in, "field"));
        }
        int flags = Wire.readByte(in, "flags");
        if ((flags & ~63) != 0) {
            throw new Wire.MalformedFrameException("index query flags " + flags + " set unknown bits");
        }
        byte[] lower = (flags & LOWER) != 0 ? Wire.readBlob(in, "lower bound") : null;
        byte[] upper = (flags & UPPER) != 0 ? Wire.readBlob(in, "upper bound") : null;
        byte[] after = (flags & AFTER) != 0 ? Wire.readBlob(in, "after") : null;
        int pageSize = Math.max(1, Math.min(MAX_PAGE, Wire.readInt(in, "page size")));
        int[] partitions = null;
        if ((flags & PARTITIONS) != 0) {
            int m = Wire.readCount(in, 4, "partition");
            partitions = new int[m];
            for (int i = 0; i < m; i++) {
                partitions[i] = in.readInt();
            }
        }
        return new Request(cache, List.copyOf(fields), new IndexBounds(lower, (flags & LOWER_INCLUSIVE) != 0, upper,
                (flags & UPPER_INCLUSIVE) != 0), after, pageSize, partitions);
    }

    public static void writePage(ByteBuf out, IndexPage page) {
        out.writeInt(page.size());
        byte[] bytes = page.array();
        for (int i = 0; i < page.size(); i++) {
            Wire.writeBlob(out, bytes, page.indexKeyOffset(i), page.indexKeyLength(i));
            out.writeInt(page.keyLength(i));
            byte[] value = page.value(i);
            Wire.writeBlob(out, value, 0, value.length);
        }
        out.writeByte(page.more() ? 1 : 0);
    }

    /** An answer's page: its index keys read into one array, each value into one of its own. */
    public static IndexPage readPage(ByteBuf in) {
        int n = Wire.readCount(in, 12, "entry");
        IndexPage page = new IndexPage(n);
        for (int i = 0; i < n; i++) {
            int indexKeyLength = Wire.readLength(in, "index key");
            int k = page.reserve(indexKeyLength);
            in.readBytes(page.array(), k, indexKeyLength);
            int entry = page.addEntry(k, indexKeyLength);
            int keyLength = Wire.readInt(in, "key length");
            if (keyLength < 1 || keyLength > indexKeyLength) {
                throw new Wire.MalformedFrameException("key length " + keyLength + " of an index key of "
                        + indexKeyLength + " bytes");
            }
            page.setValue(entry, keyLength, Wire.readBlob(in, "value"));
        }
        return page.more(Wire.readByte(in, "more") != 0);
    }

    /** CREATE_INDEX's and DESTROY_INDEX's body: string cache, u8 n, n × string field. */
    public static void writeFields(ByteBuf out, String cache, List<String> fields) {
        Wire.writeString(out, cache);
        out.writeByte(fields.size());
        for (String f : fields) {
            Wire.writeString(out, f);
        }
    }
}
