package io.sluice.node.internal;

import io.sluice.pagestore.internal.BatchMode;
import io.sluice.pagestore.internal.StoreJournal;
import io.sluice.protocol.internal.EntryBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A partition's journal that also hands each write to the node's {@link JournalTap} (after the log has it): the
 * decorator every partition of the node gets, so that a tap installed later (a cluster member, once joined) sees
 * the writes of caches created or recovered before. Without a tap it costs one volatile read per write.
 */
final class TappedJournal implements StoreJournal {

    private static final Logger LOG = LoggerFactory.getLogger(TappedJournal.class);

    /** The node's tap, shared by all its partitions' journals. */
    static final class Slot {
        volatile JournalTap tap = JournalTap.NONE;
    }

    private final StoreJournal log;
    private final String cache;
    private final int partition;
    private final Slot slot;

    TappedJournal(StoreJournal log, String cache, int partition, Slot slot) {
        this.log = log;
        this.cache = cache;
        this.partition = partition;
        this.slot = slot;
    }

    @Override
    public void batch(EntryBatch batch, BatchMode mode, boolean partial, boolean skipStore) {
        log.batch(batch, mode, partial, skipStore);
        JournalTap tap = slot.tap;
        if (tap != JournalTap.NONE) {
            try {
                tap.batch(cache, partition, batch, mode, partial, skipStore);
            } catch (RuntimeException e) {
                LOG.error("cache '{}' partition {}: the journal's tap failed on a batch: {}", cache, partition,
                        e.toString());
            }
        }
    }

    @Override
    public void entry(byte[] key, int keyOffset, int keyLength, byte[] value, int valueOffset, int valueLength,
                      BatchMode mode, boolean skipStore) {
        log.entry(key, keyOffset, keyLength, value, valueOffset, valueLength, mode, skipStore);
        JournalTap tap = slot.tap;
        if (tap != JournalTap.NONE) {
            try {
                tap.entry(cache, partition, key, keyOffset, keyLength, value, valueOffset, valueLength, mode,
                        skipStore);
            } catch (RuntimeException e) {
                LOG.error("cache '{}' partition {}: the journal's tap failed on an entry: {}", cache, partition,
                        e.toString());
            }
        }
    }

    /** Logged only: a tap sees writes, and a partition replaced by a file is not one it could send on. */
    @Override
    public void adopted(String file) {
        log.adopted(file);
    }

    @Override
    public boolean recording() {
        return log.recording() || slot.tap != JournalTap.NONE;
    }

    @Override
    public long changes() {
        return log.changes();
    }

    @Override
    public void checkWritable() {
        log.checkWritable();
    }
}
