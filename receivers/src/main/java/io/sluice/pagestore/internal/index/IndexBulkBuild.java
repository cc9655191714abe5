package io.sluice.pagestore.internal.index;

import io.sluice.DataRegionFullException;
import io.sluice.pagestore.internal.page.RowBatchWriter;
import io.sluice.pagestore.internal.page.RowStore;
import io.sluice.pagestore.internal.tree.SortedWalk;
import io.sluice.pagestore.internal.tree.TreeBuilder;
import io.sluice.pagestore.internal.tree.TreePageIO;

/**
 * The field indexes of a partition being built in bulk (a partition file's load into an emptied partition): each
 * entry's index keys are gathered per index ({@link #put}) across the whole load, and at its end ({@link #finish})
 * each index's keys are sorted once, their index rows appended to data pages in turn and the index tree built
 * bottom-up ({@link TreeBuilder}), with no descent or split per key. The heap is bounded: an index whose gathered
 * rows pass {@value #MAX_GATHERED} bytes has them applied as one sorted pass ({@link IndexTree#applySorted}) and
 * gathers on; its later keys then go in by sorted passes too (the tree is no longer empty).
 *
 * <p>A region that fills up marks that index incomplete (as a batch's index pass does) and frees what its build
 * took; the entries stand. Under the partition's write lock; one per load.
 */
public final class IndexBulkBuild {

    /** Bytes of index rows gathered per index before they are applied (about 400,000 keys of 40 bytes). */
    static final int MAX_GATHERED = 16 << 20;

    private final RowBatchWriter writer;
    private final SortedWalk walk;
    private IndexTree[] trees = new IndexTree[0];
    private IndexOps[] ops = new IndexOps[0];

    public IndexBulkBuild(RowStore rows) {
        this.writer = new RowBatchWriter(rows);
        this.walk = new SortedWalk(TreePageIO.leafCapacity(rows.memory().pageSize()));
    }

    /** Starts gathering for the partition's indexes (they are empty). */
    public void begin(PartitionIndexes indexes) {
        trees = indexes.trees();
        ops = new IndexOps[trees.length];
        for (int i = 0; i < ops.length; i++) {
            ops[i] = new IndexOps();
        }
    }

    /** Whether the partition has indexes (else nothing needs telling). */
    public boolean active() {
        return trees.length > 0;
    }

    /** The index keys of an entry built in, whose row is at {@code link}. */
    public void put(byte[] key, int keyOffset, int keyLength, byte[] value, int valueOffset, int valueLength,
                    long link) {
        for (int i = 0; i < trees.length; i++) {
            IndexOps o = ops[i];
            trees[i].keys.append(o, IndexOps.PUT, link, key, keyOffset, keyLength, value, valueOffset, valueLength);
            if (o.length() > MAX_GATHERED) {
                applySorted(i);
            }
        }
    }

    /** Builds (or, past the bound, applies) what each index gathered; the indexes then hold every entry put. */
    public void finish() {
        for (int i = 0; i < trees.length; i++) {
            if (ops[i].count() == 0) {
                continue;
            }
            if (trees[i].tree.isEmpty()) {
                build(i);
            } else {
                applySorted(i);
            }
        }
        trees = new IndexTree[0];
        ops = new IndexOps[0];
    }

    /** Forgets what was gathered (a load that failed: the caller clears the indexes). */
    public void abort() {
        trees = new IndexTree[0];
        ops = new IndexOps[0];
    }

    private void applySorted(int i) {
        try {
            trees[i].applySorted(ops[i], walk, writer);
        } catch (DataRegionFullException e) {
            trees[i].markIncomplete(e.getMessage());
        }
        ops[i].clear();
    }

    /** The index's keys sorted once, rows appended, the tree built bottom-up. */
    private void build(int i) {
        IndexTree index = trees[i];
        IndexOps o = ops[i];
        index.chooseItems();
        int n = o.count();
        int[] order = o.sorted();
        byte[] b = o.bytes();
        TreeBuilder builder = new TreeBuilder(index.tree);
        long ahead = o.length() + 4L * n;
        writer.begin();
        try {
            int previous = -1;
            for (int k = 0; k < n; k++) {
                int e = order[k];
                if (previous >= 0 && o.sameKey(previous, e)) {
                    continue; // not from a load of distinct entry keys (an index key ends with the entry key)
                }
                int ko = o.keyOffset(e);
                int kl = o.keyLength(e);
                ahead -= IndexOps.HEADER + kl + IndexOps.LINK + 4;
                builder.reserve();
                long link = writer.add(b, o.start(e), kl, IndexOps.LINK, Math.max(0, ahead));
                builder.add(link, b, ko, kl, o.prefixHigh(e), o.prefixLow(e));
                previous = e;
            }
            writer.finish();
            builder.finish();
            index.countApplied(builder.size());
        } catch (DataRegionFullException e) {
            writer.finish();
            builder.abort();
            index.markIncomplete(e.getMessage());
        }
        o.clear();
    }
}
