package io.sluice.streamer.internal;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Arrays of batches the node has applied, kept for the next batches so that a steady load allocates
 * no batch bytes (without it, every entry's encoded bytes were allocated a second time: the batch
 * array that holds them). Bounded by a number of arrays and a number of bytes; past the bounds an
 * array is left to the collector.
 *
 * <p>An array comes back only when nothing can read it any more: its batch succeeded, so the node
 * has applied it (in-JVM) or has answered after receiving the whole frame (remote), and the receiver
 * is a built-in one, which copies what it keeps into pages. A custom receiver or an entry processor
 * may keep objects that read the batch's bytes, and a failed or cancelled batch may still be in a
 * send queue or on an apply thread: their arrays are never reused ({@link #disabled()}, or simply
 * not returned).
 */
final class BatchArrays {

    private static final BatchArrays DISABLED = new BatchArrays(0, 0);

    private final ArrayBlockingQueue<byte[]> arrays;
    private final long maxBytes;
    private final AtomicLong bytes = new AtomicLong();

    /**
     * @param maxArrays arrays kept at most
     * @param maxBytes  bytes kept at most (heap on top of the streamer's buffer memory)
     */
    BatchArrays(int maxArrays, long maxBytes) {
        this.arrays = new ArrayBlockingQueue<>(Math.max(1, maxArrays));
        this.maxBytes = maxBytes;
    }

    /** A pool that keeps nothing. */
    static BatchArrays disabled() {
        return DISABLED;
    }

    /** A kept array of at least {@code minLength} bytes, or a new one of {@code length}. Its content is undefined. */
    byte[] take(int minLength, int length) {
        if (maxBytes > 0) {
            byte[] a = arrays.poll();
            if (a != null) {
                bytes.addAndGet(-a.length);
                if (a.length >= minLength) {
                    return a;
                }
                // too small for this batch: dropped, so that sizes follow the load
            }
        }
        return new byte[length];
    }

    /** Keeps an array no one reads any more, if within the bounds. */
    void give(byte[] array) {
        if (maxBytes <= 0 || bytes.addAndGet(array.length) > maxBytes) {
            if (maxBytes > 0) {
                bytes.addAndGet(-array.length);
            }
            return;
        }
        if (!arrays.offer(array)) {
            bytes.addAndGet(-array.length);
        }
    }

    /** Arrays kept now. */
    int kept() {
        return arrays.size();
    }
}
