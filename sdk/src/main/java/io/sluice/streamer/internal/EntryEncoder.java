package io.sluice.streamer.internal;

import io.sluice.binary.internal.DirectBuilder;
import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.binary.internal.ValueCodec;
import io.sluice.protocol.internal.EntryBatch;

/**
 * Encodes one entry, in the {@link EntryBatch} layout, into a scratch buffer of the calling thread:
 * no allocation per entry, and the key bytes are at hand for the partition hash before any lock is
 * taken. The scratch is then copied into the partition buffer.
 *
 * <p>The scratch is the thread's own ({@link ThreadLocal}), but each encoder remembers the first thread
 * that used it (replaced once that thread has ended) and that thread's scratch, so a streamer fed by
 * one thread looks the thread-local up once, not once per entry. The lookup was 17% of a Kafka Connect task thread's time: a worker's
 * threads carry crowded thread-local maps, where {@code ThreadLocal.get} probes past many entries.
 */
final class EntryEncoder {

    private static final ThreadLocal<GrowableBuffer> SCRATCH = ThreadLocal.withInitial(() -> new GrowableBuffer(512));

    /** A thread's scratch. Published through a plain field: the final fields make a racy read safe. */
    private static final class OwnedScratch {
        final Thread owner;
        final GrowableBuffer buffer;

        OwnedScratch(Thread owner, GrowableBuffer buffer) {
            this.owner = owner;
            this.buffer = buffer;
        }
    }

    private final ValueCodec codec;
    /**
     * The scratch of the first thread that encoded (see above). Read and written without a lock: a thread uses it only if
     * it is the owner, so every thread still only ever writes into its own scratch.
     */
    private OwnedScratch last;

    EntryEncoder(ValueCodec codec) {
        this.codec = codec;
    }

    /**
     * Encodes the entry into this thread's scratch, which stays valid until the thread's next call.
     *
     * @param value the value, or null for a removal
     * @return the scratch; the entry is {@code [0, position())}
     */
    GrowableBuffer encode(Object key, Object value, boolean removal) {
        GrowableBuffer out = encodeKey(key);
        int keyLength = out.position() - EntryBatch.ENTRY_HEADER;
        int valueLength = EntryBatch.REMOVAL;
        if (!removal) {
            codec.encode(value, out);
            valueLength = out.position() - EntryBatch.ENTRY_HEADER - keyLength;
        }
        out.putIntAt(4, valueLength);
        return out;
    }

    /**
     * Encodes the entry with the object the builder holds as its value, written by the builder straight into the
     * scratch (the bytes {@code encode(key, value.build(), false)} writes); the builder is left empty.
     *
     * @return the scratch; the entry is {@code [0, position())}
     */
    GrowableBuffer encode(Object key, DirectBuilder value) {
        GrowableBuffer out = encodeKey(key);
        int valueStart = out.position();
        value.buildInto(out);
        out.putIntAt(4, out.position() - valueStart);
        return out;
    }

    /** Starts the entry in this thread's scratch: the key after the header, its length in the header. */
    private GrowableBuffer encodeKey(Object key) {
        GrowableBuffer out = scratch();
        out.reset();
        out.position(EntryBatch.ENTRY_HEADER);
        codec.encode(key, out);
        int keyLength = out.position() - EntryBatch.ENTRY_HEADER;
        if (keyLength < 1) {
            throw new IllegalStateException("the codec encoded key " + key + " to no bytes");
        }
        out.putIntAt(0, keyLength);
        return out;
    }

    private GrowableBuffer scratch() {
        Thread thread = Thread.currentThread();
        OwnedScratch s = last;
        if (s != null && s.owner == thread) {
            return s.buffer;
        }
        GrowableBuffer buffer = SCRATCH.get();
        if (s == null || !s.owner.isAlive()) {
            // The first adding thread keeps the shortcut while it lives; others look their scratch up.
            // Taking turns instead would write this shared field (and allocate) on every switch of
            // threads, which several producers of one streamer would do entry after entry.
            last = new OwnedScratch(thread, buffer);
        }
        return buffer;
    }

    /** Drops an oversized scratch once the entry has been copied out of it. */
    void trim(GrowableBuffer scratch) {
        if (scratch.oversized()) {
            SCRATCH.remove();
            OwnedScratch s = last;
            if (s != null && s.buffer == scratch) {
                last = null;
            }
        }
    }

    static int keyLength(GrowableBuffer scratch) {
        return GrowableBuffer.getInt(scratch.array(), 0);
    }
}
