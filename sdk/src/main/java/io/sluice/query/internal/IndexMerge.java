package io.sluice.query.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;

/**
 * Sources in index order merged into one, by index key (unsigned bytes; index keys end with the entry's key, so two
 * sources never give equal ones): the partitions of a node, the nodes of a cluster. Each source is first read at the
 * first {@link #next()}; the merge holds one current entry per source. Closing it closes every source.
 *
 * <p>A tree of losers picks the smallest head: after the winner moves, one comparison per level of the tree
 * (log2 of the sources) finds the next, each on the first 16 bytes of the two index keys held as two unsigned longs,
 * the rest of the keys compared only when those are equal. Nothing is allocated per entry.
 */
public final class IndexMerge implements IndexEntries {

    private static final VarHandle LONG_BE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private final List<? extends IndexEntries> sources;
    private final IndexEntries[] heads;
    private final int count;
    /** Each source's current index key's bytes 0-7 and 8-15, big-endian, zero past its end. */
    private final long[] high;
    private final long[] low;
    /** Sources with no entry left (larger than any key). */
    private final boolean[] done;
    /** The tree: {@code tree[n]} for n in [1, count) is the loser at node n (children 2n, 2n + 1; source s is the
     *  leaf count + s); {@code tree[0]} is the winner. */
    private final int[] tree;
    private IndexEntries current;
    private boolean started;

    public IndexMerge(List<? extends IndexEntries> sources) {
        this.sources = sources;
        this.count = sources.size();
        this.heads = sources.toArray(new IndexEntries[0]);
        this.high = new long[count];
        this.low = new long[count];
        this.done = new boolean[count];
        this.tree = new int[Math.max(1, count)];
    }

    @Override
    public boolean next() {
        if (count == 0) {
            return false;
        }
        if (!started) {
            started = true;
            for (int s = 0; s < count; s++) {
                advance(s);
            }
            build();
        } else if (current != null) {
            int w = tree[0];
            advance(w);
            replay(w);
        }
        int w = tree[0];
        current = done[w] ? null : heads[w];
        return current != null;
    }

    private void advance(int s) {
        IndexEntries e = heads[s];
        if (!e.next()) {
            done[s] = true;
            return;
        }
        byte[] a = e.array();
        int at = e.indexKeyOffset();
        int n = e.indexKeyLength();
        high[s] = prefix(a, at, n, 0);
        low[s] = prefix(a, at, n, 8);
    }

    /** Bytes [from, from + 8) of the key as a big-endian long, zeros past its end. */
    private static long prefix(byte[] a, int at, int length, int from) {
        if (length >= from + 8) {
            return (long) LONG_BE.get(a, at + from);
        }
        long v = 0;
        for (int i = from; i < from + 8; i++) {
            v = v << 8 | (i < length ? a[at + i] & 0xFF : 0);
        }
        return v;
    }

    private void build() {
        int[] winners = new int[2 * count];
        for (int s = 0; s < count; s++) {
            winners[count + s] = s;
        }
        for (int n = count - 1; n >= 1; n--) {
            int a = winners[2 * n];
            int b = winners[2 * n + 1];
            if (less(a, b)) {
                winners[n] = a;
                tree[n] = b;
            } else {
                winners[n] = b;
                tree[n] = a;
            }
        }
        tree[0] = winners[1];
    }

    /** Source {@code s} moved: plays its new head against the losers on its way up. */
    private void replay(int s) {
        int winner = s;
        for (int n = (s + count) >>> 1; n >= 1; n >>>= 1) {
            int loser = tree[n];
            if (less(loser, winner)) {
                tree[n] = winner;
                winner = loser;
            }
        }
        tree[0] = winner;
    }

    /** Whether source a's head comes before source b's (a done source comes after everything). */
    private boolean less(int a, int b) {
        if (done[a]) {
            return false;
        }
        if (done[b]) {
            return true;
        }
        if (high[a] != high[b]) {
            return Long.compareUnsigned(high[a], high[b]) < 0;
        }
        if (low[a] != low[b]) {
            return Long.compareUnsigned(low[a], low[b]) < 0;
        }
        IndexEntries x = heads[a];
        IndexEntries y = heads[b];
        int c = Arrays.compareUnsigned(x.array(), x.indexKeyOffset(), x.indexKeyOffset() + x.indexKeyLength(),
                y.array(), y.indexKeyOffset(), y.indexKeyOffset() + y.indexKeyLength());
        return c < 0 || (c == 0 && a < b);
    }

    @Override
    public byte[] array() {
        return current.array();
    }

    @Override
    public int indexKeyOffset() {
        return current.indexKeyOffset();
    }

    @Override
    public int indexKeyLength() {
        return current.indexKeyLength();
    }

    @Override
    public int keyLength() {
        return current.keyLength();
    }

    @Override
    public byte[] value() {
        return current.value();
    }

    @Override
    public void close() {
        RuntimeException failure = null;
        for (IndexEntries s : sources) {
            try {
                s.close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
