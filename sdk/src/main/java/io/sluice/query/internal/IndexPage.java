package io.sluice.query.internal;

import java.util.ArrayList;
import java.util.List;

/** One page of a source's entries, in index order, and whether the source may have more after them. */
public final class IndexPage {

    /** Index key, key, value of each entry, flattened. */
    private final List<byte[]> parts;
    private boolean more;

    public IndexPage(int expected) {
        this.parts = new ArrayList<>(3 * Math.max(1, Math.min(expected, 4096)));
    }

    public void add(byte[] indexKey, byte[] key, byte[] value) {
        parts.add(indexKey);
        parts.add(key);
        parts.add(value);
    }

    public int size() {
        return parts.size() / 3;
    }

    public byte[] indexKey(int i) {
        return parts.get(3 * i);
    }

    public byte[] key(int i) {
        return parts.get(3 * i + 1);
    }

    public byte[] value(int i) {
        return parts.get(3 * i + 2);
    }

    /** Whether the source may hold entries after this page's last (false: it has none). */
    public boolean more() {
        return more;
    }

    public IndexPage more(boolean more) {
        this.more = more;
        return this;
    }
}
