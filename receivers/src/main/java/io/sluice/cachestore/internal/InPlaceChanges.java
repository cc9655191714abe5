package io.sluice.cachestore.internal;

import io.sluice.pagestore.internal.PartitionStore;
import io.sluice.pagestore.internal.StoredEntry;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The keys of one partition that an in-place invocation changed (entry processors through
 * {@code invoke}/{@code invokeAll}, the transformer receiver), each with its value before and after,
 * so that the cache's store gets the new values and memory can be put back if the store refuses them.
 *
 * <p>Why memory first on these paths (the others write the store first): a processor computes the new
 * value where the old one lies; learning it without changing memory would mean running the user's
 * processor twice. So the invocation changes memory under the partition's write lock, the store is
 * written after (no lock held), and on a store failure {@link #undo} puts back each key's old value —
 * unless the key was changed again meanwhile, and then the later change stands. Until then readers may
 * see the new values. Not thread-safe: one invocation, on its partition's apply thread.
 */
public final class InPlaceChanges {

    private final List<byte[]> keys = new ArrayList<>();
    /** The value before, or null if the key had none. */
    private final List<byte[]> before = new ArrayList<>();
    /** The value after, or null if the processor removed the key. */
    private final List<byte[]> after = new ArrayList<>();
    /** The caller's index of each changed key. */
    private final List<Integer> indexes = new ArrayList<>();
    private byte[] pending;

    /** Records the key's value before its processor runs; the entry is positioned on the key. */
    public void before(StoredEntry entry) {
        pending = valueOf(entry);
    }

    /**
     * Records the key's value after its processor succeeded, if it changed.
     *
     * @param index the caller's index of the key, given back by {@link #index}
     */
    public void after(StoredEntry entry, byte[] key, int keyOffset, int keyLength, int index) {
        entry.at(key, keyOffset, keyLength);
        byte[] now = valueOf(entry);
        if (Arrays.equals(now, pending)) {
            return;
        }
        keys.add(Arrays.copyOfRange(key, keyOffset, keyOffset + keyLength));
        before.add(pending);
        after.add(now);
        indexes.add(index);
    }

    private static byte[] valueOf(StoredEntry entry) {
        if (!entry.exists()) {
            return null;
        }
        byte[] value = new byte[entry.valueLength()];
        entry.readValue(value, 0);
        return value;
    }

    public boolean isEmpty() {
        return keys.isEmpty();
    }

    /** How many keys changed. */
    public int size() {
        return keys.size();
    }

    /** The caller's index of changed key {@code i}. */
    public int index(int i) {
        return indexes.get(i);
    }

    /** The changes as the store sees them: each key's value after, or its removal. */
    public StoreChanges changes(CacheStoreBridge writer, int partition) {
        StoreChanges changes = writer.newChanges();
        for (int i = 0; i < keys.size(); i++) {
            byte[] key = keys.get(i);
            byte[] value = after.get(i);
            if (value == null) {
                changes.add(partition, key, 0, key.length, key, 0, 0, true);
            } else {
                changes.add(partition, key, 0, key.length, value, 0, value.length);
            }
        }
        return changes;
    }

    /**
     * Puts back, in memory, each changed key's value from before (latest change first), where the key
     * still holds the value the invocation gave it.
     *
     * @throws RuntimeException if memory could not be put back (the partition is gone, the region is full)
     */
    public void undo(PartitionStore store) {
        store.update(entry -> {
            for (int i = keys.size() - 1; i >= 0; i--) {
                byte[] key = keys.get(i);
                entry.at(key, 0, key.length);
                if (!Arrays.equals(valueOf(entry), after.get(i))) {
                    continue; // changed again since: the later change stands
                }
                byte[] old = before.get(i);
                if (old == null) {
                    entry.remove();
                } else {
                    entry.put(old, 0, old.length);
                }
            }
        });
    }
}
