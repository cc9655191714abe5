package io.sluice.pagestore.internal.page;

import java.nio.ByteBuffer;

/**
 * The header every page starts with. The free list owns bytes 5-23; the page's type owns the rest.
 *
 * <pre>
 * offset  size  meaning
 * 0       4     unused (the page's lock word is kept by {@link PageMemory#readLock})
 * 4       1     page type: {@link #TYPE_DATA}, {@link #TYPE_FRAGMENT}, {@link #TYPE_LEAF}, {@link #TYPE_INNER}
 * 5       1     free-list state (FreeList)
 * 6       2     free-list bucket (FreeList)
 * 8       8     free-list next page id (FreeList)
 * 16      8     free-list previous page id (FreeList)
 * 24      ...   the type's own layout
 * </pre>
 */
public final class PageHeader {

    public static final int TYPE = 4;
    public static final int FREE_LIST_STATE = 5;
    public static final int FREE_LIST_BUCKET = 6;
    public static final int FREE_LIST_NEXT = 8;
    public static final int FREE_LIST_PREV = 16;
    /** Where a type's own layout starts. */
    public static final int SIZE = 24;

    public static final byte TYPE_FREE = 0;
    public static final byte TYPE_DATA = 1;
    public static final byte TYPE_FRAGMENT = 2;
    public static final byte TYPE_LEAF = 3;
    public static final byte TYPE_INNER = 4;

    private PageHeader() {
    }

    public static byte type(ByteBuffer b, int page) {
        return b.get(page + TYPE);
    }

    public static void type(ByteBuffer b, int page, byte type) {
        b.put(page + TYPE, type);
    }
}
