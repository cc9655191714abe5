package io.sluice.streamer.internal;

import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.binary.internal.ValueCodec;
import io.sluice.protocol.internal.EntryBatch;

/**
 * Encodes one entry, in the {@link EntryBatch} layout, into a scratch buffer of the calling thread:
 * no allocation per entry, and the key bytes are at hand for the partition hash before any lock is
 * taken. The scratch is then copied into the partition buffer.
 */
final class EntryEncoder {

    private static final ThreadLocal<GrowableBuffer> SCRATCH = ThreadLocal.withInitial(() -> new GrowableBuffer(512));

    private final ValueCodec codec;

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
        GrowableBuffer out = SCRATCH.get();
        out.reset();
        out.position(EntryBatch.ENTRY_HEADER);
        codec.encode(key, out);
        int keyLength = out.position() - EntryBatch.ENTRY_HEADER;
        if (keyLength < 1) {
            throw new IllegalStateException("the codec encoded key " + key + " to no bytes");
        }
        int valueLength = EntryBatch.REMOVAL;
        if (!removal) {
            codec.encode(value, out);
            valueLength = out.position() - EntryBatch.ENTRY_HEADER - keyLength;
        }
        out.putIntAt(0, keyLength);
        out.putIntAt(4, valueLength);
        return out;
    }

    /** Drops an oversized scratch once the entry has been copied out of it. */
    static void trim(GrowableBuffer scratch) {
        if (scratch.oversized()) {
            SCRATCH.remove();
        }
    }

    static int keyLength(GrowableBuffer scratch) {
        return GrowableBuffer.getInt(scratch.array(), 0);
    }
}
