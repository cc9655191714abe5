package io.sluice.pagestore.internal.page;

import java.nio.ByteBuffer;

/**
 * A whole page holding one slice of a row too large for one page. A row's fragment pages are always
 * full: the part that does not fill a whole page is the row's head, in a data page. Only the row's
 * partition touches these pages, under its partition lock, so they need no page lock.
 *
 * <pre>
 * offset  size           meaning
 * 0       24             {@link PageHeader}
 * 24      8              next fragment page id (0 = last)
 * 32      pageSize - 32  payload
 * </pre>
 */
public final class FragmentPageIO {

    static final int NEXT = 24;
    static final int PAYLOAD = 32;

    private FragmentPageIO() {
    }

    /**
     * Payload bytes used per fragment page: no more than a linked row head can hold, so that any row
     * splits into full fragments plus a head of 1 to this many bytes.
     */
    public static int capacity(int pageSize) {
        return DataPageIO.maxPayload(pageSize, true);
    }

    public static void init(ByteBuffer b, int p, long next) {
        PageHeader.type(b, p, PageHeader.TYPE_FRAGMENT);
        b.putLong(p + NEXT, next);
    }

    public static long next(ByteBuffer b, int p) {
        return b.getLong(p + NEXT);
    }

    public static int payloadOffset(int p) {
        return p + PAYLOAD;
    }
}
