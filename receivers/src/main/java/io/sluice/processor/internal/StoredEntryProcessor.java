package io.sluice.processor.internal;

import io.sluice.pagestore.internal.StoredEntry;

/**
 * A processor as the node runs it: on one stored entry, under the partition's write lock, on the
 * partition's apply thread (an instance is never called by two threads at once).
 */
public interface StoredEntryProcessor {

    /**
     * Processes the entry the {@link StoredEntry} is positioned on.
     *
     * @param entry    the entry, positioned on the key
     * @param key      the key's encoded bytes ({@code [keyOffset, keyOffset + keyLength)})
     * @param argument the caller's argument (decoded; binary objects kept binary), or {@code null}
     * @return the result for the caller, or {@code null}
     * @throws Exception if the key cannot be processed; the entry then keeps the value it had
     */
    Object process(StoredEntry entry, byte[] key, int keyOffset, int keyLength, Object argument) throws Exception;
}
