package io.sluice.node.internal;

import io.sluice.protocol.internal.EntryBatch;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The keys that recovery replayed from the log after the last checkpoint's mark, per cache and partition:
 * the changes a write-behind store may not have confirmed when the node stopped. They are handed back when
 * the cache is put in front of its store again ({@link NodeEngine#getOrCreateCache}) and queued anew.
 *
 * <p>Bounded: at most {@link #MAX_BYTES} of keys in all. Past it a partition is marked whole (its present
 * entries are queued again; a removal there since the mark is then not re-sent — logged when it happens).
 * Thread-safe (recovery adds from its reading thread; caches take theirs later from other threads).
 *
 * <pre>
 * per partition, a run of:  offset  size  field
 *                           0       4     key length n (big-endian)
 *                           4       n     key bytes
 * </pre>
 */
final class RecoveredKeys {

    /** Key bytes kept in all, at most. */
    static final long MAX_BYTES = 64L << 20;

    /** One cache's replayed keys. */
    static final class CacheKeys {
        private final byte[][] runs;
        private final int[] lengths;
        private final boolean[] whole;

        CacheKeys(int partitions) {
            runs = new byte[partitions][];
            lengths = new int[partitions];
            whole = new boolean[partitions];
        }

        /** Whether the partition's keys overflowed: queue every present entry of it. */
        boolean whole(int partition) {
            return whole[partition];
        }

        /** The partition's keys in replay order (a key may repeat). */
        List<byte[]> keys(int partition) {
            List<byte[]> keys = new ArrayList<>();
            byte[] run = runs[partition];
            for (int at = 0; at < lengths[partition]; ) {
                int n = (run[at] & 0xFF) << 24 | (run[at + 1] & 0xFF) << 16 | (run[at + 2] & 0xFF) << 8 | (run[at + 3] & 0xFF);
                keys.add(Arrays.copyOfRange(run, at + 4, at + 4 + n));
                at += 4 + n;
            }
            return keys;
        }

        int partitions() {
            return runs.length;
        }
    }

    private final Map<Integer, CacheKeys> byCache = new HashMap<>();
    private long bytes;

    /** Notes the keys of a replayed batch. */
    synchronized void add(int cacheId, int partitions, int partition, EntryBatch batch) {
        CacheKeys cache = byCache.computeIfAbsent(cacheId, id -> new CacheKeys(partitions));
        if (cache.whole[partition]) {
            return;
        }
        byte[] data = batch.data();
        for (int i = 0; i < batch.size(); i++) {
            int n = batch.keyLength(i);
            if (bytes + 4 + n > MAX_BYTES) {
                cache.whole[partition] = true;
                bytes -= cache.lengths[partition];
                cache.runs[partition] = null;
                cache.lengths[partition] = 0;
                return;
            }
            byte[] run = cache.runs[partition];
            int length = cache.lengths[partition];
            if (run == null || length + 4 + n > run.length) {
                run = Arrays.copyOf(run == null ? new byte[0] : run, Math.max(256, Math.max(run == null ? 0 : run.length * 2,
                        length + 4 + n)));
                cache.runs[partition] = run;
            }
            run[length] = (byte) (n >>> 24);
            run[length + 1] = (byte) (n >>> 16);
            run[length + 2] = (byte) (n >>> 8);
            run[length + 3] = (byte) n;
            System.arraycopy(data, batch.keyOffset(i), run, length + 4, n);
            cache.lengths[partition] = length + 4 + n;
            bytes += 4 + n;
        }
    }

    /** Whether recovery replayed keys of the cache that are not taken yet. */
    synchronized boolean holds(int cacheId) {
        return byCache.containsKey(cacheId);
    }

    /** Forgets a cache (dropped). */
    synchronized void forget(int cacheId) {
        release(byCache.remove(cacheId));
    }

    /** The cache's keys, handed over once; null if recovery replayed none. */
    synchronized CacheKeys take(int cacheId) {
        CacheKeys keys = byCache.remove(cacheId);
        release(keys);
        return keys;
    }

    private void release(CacheKeys keys) {
        if (keys != null) {
            for (int length : keys.lengths) {
                bytes -= length;
            }
        }
    }
}
