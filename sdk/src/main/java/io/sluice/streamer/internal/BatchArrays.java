package io.sluice.streamer.internal;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Arrays of batches the node has applied, kept for the next batches so that a steady load allocates
 * no batch bytes (without it, every entry's encoded bytes were allocated a second time: the batch
 * array that holds them). Bounded by a number of arrays and a number of bytes; past the bounds an
 * array is left to the collector. One pool serves every streamer of a client or a node (see
 * {@link #shared()}), so a new streamer's first batches take the arrays earlier streamers left.
 *
 * <p>Lock-free: the arrays sit in slots taken and filled with one atomic swap, found from a rotating
 * index by a few probes. The pool used to be an {@code ArrayBlockingQueue}, whose lock (taken by the
 * adding thread for every batch and by the thread completing batches for every return) was 13% of a
 * Connect task thread's time (docs/benchmarks-results.md, 2026-11-23 22:20–22:25).
 *
 * <p>An array comes back only when nothing can read it any more: its batch succeeded, so the node
 * has applied it (in-JVM) or has answered after receiving the whole frame (remote), and the receiver
 * is a built-in one, which copies what it keeps into pages. A custom receiver or an entry processor
 * may keep objects that read the batch's bytes, and a failed or cancelled batch may still be in a
 * send queue or on an apply thread: their arrays are never reused ({@link #disabled()}, or simply
 * not returned).
 */
public final class BatchArrays {

    private static final BatchArrays DISABLED = new BatchArrays(1, 0);
    /** Slots looked at by one take or give before it gives up (allocates, or drops the array). */
    private static final int PROBES = 8;

    private final AtomicReferenceArray<byte[]> slots;
    private final int mask;
    private final long maxBytes;
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicInteger kept = new AtomicInteger();
    private final AtomicInteger cursor = new AtomicInteger();

    /**
     * @param maxArrays arrays kept at most (rounded up to a power of two)
     * @param maxBytes  bytes kept at most (heap on top of the streamers' buffer memory)
     */
    BatchArrays(int maxArrays, long maxBytes) {
        int n = Integer.highestOneBit(Math.max(1, Math.min(maxArrays, 1 << 20)) * 2 - 1);
        this.slots = new AtomicReferenceArray<>(n);
        this.mask = n - 1;
        this.maxBytes = maxBytes;
    }

    /**
     * The pool a client or a node shares among its streamers: up to 4,096 arrays and an eighth of the
     * maximum heap, at most 128 MiB.
     */
    public static BatchArrays shared() {
        return new BatchArrays(4096, Math.min(128L << 20, Runtime.getRuntime().maxMemory() / 8));
    }

    /** A pool that keeps nothing. */
    static BatchArrays disabled() {
        return DISABLED;
    }

    /** A kept array of at least {@code minLength} bytes, or a new one of {@code length}. Its content is undefined. */
    byte[] take(int minLength, int length) {
        if (maxBytes > 0 && kept.get() > 0) {
            int start = cursor.getAndDecrement(); // the last given array is near the cursor (a stack, roughly)
            for (int i = 0; i < PROBES; i++) {
                int slot = (start - i) & mask;
                if (slots.get(slot) == null) {
                    continue;
                }
                byte[] a = slots.getAndSet(slot, null);
                if (a == null) {
                    continue;
                }
                kept.decrementAndGet();
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
        if (maxBytes <= 0) {
            return;
        }
        if (bytes.addAndGet(array.length) > maxBytes) {
            bytes.addAndGet(-array.length);
            return;
        }
        int start = cursor.incrementAndGet();
        for (int i = 0; i < PROBES; i++) {
            int slot = (start + i) & mask;
            if (slots.get(slot) == null && slots.compareAndSet(slot, null, array)) {
                kept.incrementAndGet();
                return;
            }
        }
        bytes.addAndGet(-array.length);
    }

    /** Arrays kept now. */
    int kept() {
        return kept.get();
    }
}
