package io.sluice.pagestore.internal;

import io.sluice.protocol.internal.EntryBatch;
import io.sluice.pagestore.internal.page.RowStore;

/**
 * One entry of a partition as a read-modify-write sees it ({@link PartitionStore#update}): the
 * caller positions it on a key with {@link #at}, reads the value, and changes it — in place where
 * the new bytes have the old length ({@link #overwriteValue}: no new row, no free-list or tree work),
 * or through the ordinary write path ({@link #put}, {@link #remove}). Valid only inside the
 * {@code update} call that made it, which holds the partition's write lock; not thread-safe.
 */
public final class StoredEntry {

    private final PartitionStore store;
    private final RowStore rows;
    /** Rewrites in place, and moves the entry in the indexes whose fields the rewrite changed. */
    private final EntryWriter writer;
    private final byte[] lengths = new byte[EntryBatch.ENTRY_HEADER];
    private byte[] key;
    private int keyOffset;
    private int keyLength;
    private long link;
    private int valueLength;

    StoredEntry(PartitionStore store, RowStore rows, EntryWriter writer) {
        this.store = store;
        this.writer = writer;
        this.rows = rows;
    }

    /** Positions this entry on the key (the array is read, not kept past the update). */
    public StoredEntry at(byte[] key, int keyOffset, int keyLength) {
        this.key = key;
        this.keyOffset = keyOffset;
        this.keyLength = keyLength;
        this.link = store.find(key, keyOffset, keyLength);
        if (link != 0) {
            rows.read(link, 0, lengths, 0, EntryBatch.ENTRY_HEADER);
            valueLength = (lengths[4] & 0xFF) << 24 | (lengths[5] & 0xFF) << 16 | (lengths[6] & 0xFF) << 8
                    | (lengths[7] & 0xFF);
        } else {
            valueLength = -1;
        }
        return this;
    }

    /** Whether the key has a value. */
    public boolean exists() {
        return link != 0;
    }

    /** The value's length in bytes, or -1 if the key has none. */
    public int valueLength() {
        return valueLength;
    }

    /** Copies the value into dst (which has room for {@link #valueLength()} bytes from dstOffset). */
    public void readValue(byte[] dst, int dstOffset) {
        requireValue();
        rows.read(link, EntryBatch.ENTRY_HEADER + (long) keyLength, dst, dstOffset, valueLength);
    }

    /**
     * Overwrites value bytes [at, at + length) where they lie: the value keeps its length, the row its
     * link and pages.
     *
     * @throws IndexOutOfBoundsException if the range is not inside the value
     */
    public void overwriteValue(int at, byte[] src, int srcOffset, int length) {
        requireValue();
        writer.overwriteValue(link, keyLength, valueLength, at, src, srcOffset, length);
        StoreJournal journal = store.journal();
        if (journal.recording()) { // the log holds whole values: it records the value as it now is
            byte[] value = new byte[valueLength];
            readValue(value, 0);
            journal.entry(key, keyOffset, keyLength, value, 0, valueLength, BatchMode.UPSERT, store.skipsStore());
        }
    }

    /**
     * Stores a new value for the key (rewriting the row where it fits, else writing a new one).
     *
     * @throws io.sluice.DataRegionFullException if the region has no room (nothing changed)
     */
    public void put(byte[] value, int valueOffset, int length) {
        store.write(key, keyOffset, keyLength, value, valueOffset, length, true);
        store.journal().entry(key, keyOffset, keyLength, value, valueOffset, length, BatchMode.UPSERT,
                store.skipsStore());
        at(key, keyOffset, keyLength);
    }

    /** Removes the entry. @return true if it had a value */
    public boolean remove() {
        boolean removed = link != 0 && store.delete(key, keyOffset, keyLength);
        if (removed) {
            store.journal().entry(key, keyOffset, keyLength, null, 0, 0, BatchMode.UPSERT, store.skipsStore());
        }
        link = 0;
        valueLength = -1;
        return removed;
    }

    private void requireValue() {
        if (link == 0) {
            throw new IllegalStateException("the key has no value");
        }
    }
}
