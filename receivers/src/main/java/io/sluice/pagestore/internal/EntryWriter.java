package io.sluice.pagestore.internal;

import io.sluice.pagestore.internal.index.IndexChanges;
import io.sluice.pagestore.internal.index.PartitionIndexes;
import io.sluice.pagestore.internal.page.RowStore;
import io.sluice.pagestore.internal.tree.BPlusTree;

/**
 * A partition's single-entry writes (put, put-if-absent, remove, an in-place rewrite) in one descent of its tree each, and their
 * index changes: the old row's index keys are read before the row is rewritten or freed, and each index whose
 * key changed (or whose entry's row moved) gets one descent. Reused: the partition's write lock is held.
 */
final class EntryWriter {

    static final int INSERTED = 0;
    static final int UPDATED = 1;
    static final int SKIPPED = 2;

    private final RowStore rows;
    private final BPlusTree tree;
    private final PartitionIndexes indexes;
    /**
     * The index changes of one write, made on the first write to the partition with indexes: a partition
     * without indexes (most of them) keeps none of its scratch (~2 KB), and its construction stays small.
     */
    private IndexChanges changes;
    private final PutClosure put = new PutClosure();
    /** Removes a key, first reading its old index keys. */
    private final BPlusTree.InvokeClosure removeIndexed;

    /** Applies the partition's held index changes (before a write that applies its own one by one). */
    private final Runnable applyHeld;

    EntryWriter(RowStore rows, BPlusTree tree, PartitionIndexes indexes, Runnable applyHeld) {
        this.applyHeld = applyHeld;
        this.rows = rows;
        this.tree = tree;
        this.indexes = indexes;
        this.removeIndexed = old -> {
            if (old != 0) {
                changes.removedEntry(old);
            }
            return 0;
        };
    }

    /**
     * Overwrites value bytes of the row in place ({@link RowStore#overwriteValue}); an index whose key the new
     * bytes leave as it was is not touched, one whose key they change moves the entry.
     */
    void overwriteValue(long link, int keyLength, int valueLength, int at, byte[] src, int srcOffset, int length) {
        if (indexes.isEmpty()) {
            rows.overwriteValue(link, keyLength, valueLength, at, src, srcOffset, length);
            return;
        }
        beginChanges();
        try {
            changes.removed(link);
            rows.overwriteValue(link, keyLength, valueLength, at, src, srcOffset, length);
            changes.putRow(link, true);
            changes.applyEach();
        } finally {
            changes.end();
        }
    }

    /** Stores the value (if absent, unless {@code overwrite}). @return {@link #INSERTED}, {@link #UPDATED} or {@link #SKIPPED} */
    int write(byte[] key, int keyOffset, int keyLength, byte[] value, int valueOffset, int valueLength,
              boolean overwrite) {
        boolean indexed = !indexes.isEmpty();
        if (indexed) {
            beginChanges();
        }
        put.set(key, keyOffset, keyLength, value, valueOffset, valueLength, overwrite, indexed);
        long old;
        try {
            old = tree.invoke(key, keyOffset, keyLength, put);
            if (indexed && (old == 0 || overwrite)) {
                changes.put(key, keyOffset, keyLength, value, valueOffset, valueLength, put.written, old != 0);
                changes.applyEach();
            }
        } finally {
            put.set(null, 0, 0, null, 0, 0, false, false); // keep no reference to the caller's arrays
            if (indexed) {
                changes.end();
            }
        }
        return old == 0 ? INSERTED : overwrite ? UPDATED : SKIPPED;
    }

    boolean delete(byte[] key, int keyOffset, int keyLength) {
        if (indexes.isEmpty()) {
            return tree.invoke(key, keyOffset, keyLength, REMOVE) != 0;
        }
        beginChanges();
        try {
            boolean removed = tree.invoke(key, keyOffset, keyLength, removeIndexed) != 0;
            changes.applyEach();
            return removed;
        } finally {
            changes.end();
        }
    }

    private static final BPlusTree.InvokeClosure REMOVE = old -> 0;

    /**
     * The put closure, reused (the write lock is held): keeps a present key (putIfAbsent), rewrites its
     * row in place if it fits, or writes a new row.
     */
    private final class PutClosure implements BPlusTree.InvokeClosure {
        private byte[] key;
        private int keyOffset;
        private int keyLength;
        private byte[] value;
        private int valueOffset;
        private int valueLength;
        private boolean overwrite;
        /** Whether the old row's index keys are read before it is rewritten. */
        private boolean indexed;
        /** The link the key got (the last apply's result). */
        long written;

        void set(byte[] key, int keyOffset, int keyLength, byte[] value, int valueOffset, int valueLength,
                 boolean overwrite, boolean indexed) {
            this.indexed = indexed;
            this.key = key;
            this.keyOffset = keyOffset;
            this.keyLength = keyLength;
            this.value = value;
            this.valueOffset = valueOffset;
            this.valueLength = valueLength;
            this.overwrite = overwrite;
        }

        @Override
        public long apply(long old) {
            written = old;
            if (old != 0) {
                if (!overwrite) {
                    return old;
                }
                if (indexed) {
                    changes.removed(old); // before the row is rewritten or freed
                }
                if (rows.update(old, key, keyOffset, keyLength, value, valueOffset, valueLength)) {
                    return old;
                }
            }
            written = rows.add(key, keyOffset, keyLength, value, valueOffset, valueLength);
            return written;
        }
    }

    /** Whether this writer made its index changes' scratch (a write to the partition with indexes did). */
    boolean madeIndexChanges() {
        return changes != null;
    }

    /** Starts a write's index changes, the held ones applied first (a descent per change must not overtake them). */
    private void beginChanges() {
        if (changes == null) {
            changes = new IndexChanges(rows);
        }
        if (indexes.holding()) {
            applyHeld.run();
        }
        changes.begin(indexes);
    }
}
