package io.sluice.query.internal;

import java.util.Arrays;
import java.util.List;
import java.util.PriorityQueue;

/**
 * Sources in index order merged into one, by index key (unsigned bytes; index keys end with the entry's key, so two
 * sources never give equal ones): the partitions of a node, the nodes of a cluster. Each source is first read at the
 * first {@link #next()}; the merge holds one current entry per source. Closing it closes every source.
 */
public final class IndexMerge implements IndexEntries {

    private final List<? extends IndexEntries> sources;
    private final PriorityQueue<IndexEntries> heads =
            new PriorityQueue<>((a, b) -> Arrays.compareUnsigned(a.indexKey(), b.indexKey()));
    private IndexEntries current;
    private boolean started;

    public IndexMerge(List<? extends IndexEntries> sources) {
        this.sources = sources;
    }

    @Override
    public boolean next() {
        if (!started) {
            started = true;
            for (IndexEntries s : sources) {
                if (s.next()) {
                    heads.add(s);
                }
            }
        } else if (current != null && current.next()) {
            heads.add(current);
        }
        current = heads.poll();
        return current != null;
    }

    @Override
    public byte[] indexKey() {
        return current.indexKey();
    }

    @Override
    public byte[] key() {
        return current.key();
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
