package io.sluice.server.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledHeapByteBuf;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The arrays received frames are read into, kept and handed out again: a streamed frame is held until
 * its batches are applied (on an apply thread), then released, and its array goes back here for the
 * next frame, so a steady load allocates no frame memory at all. Netty's pooled allocator was not
 * enough: it frees a 4 MiB chunk as soon as the frames in it are all released and takes a new one for
 * the next frames, which is megabytes of garbage every few requests.
 *
 * <p>Arrays come in power-of-two sizes from {@link #MIN_ARRAY} to {@link #MAX_ARRAY} (the client aims
 * at frames of 1 MiB); a frame gets the smallest that holds it. At most {@link #IDLE_BYTES} of idle
 * arrays are kept (a streamer's flush sends every partition's batch at once: tens of frames), more are
 * dropped when released. A frame longer than the largest
 * size is not pooled ({@link #take} returns null). Thread-safe: frames are taken on event loops and
 * released on apply threads; taking and giving back allocate nothing.
 */
final class FramePool {

    static final int MIN_ARRAY = 4 << 10;
    static final int MAX_ARRAY = 1 << 20;
    /** Bytes of idle arrays kept at most, all sizes together. */
    static final long IDLE_BYTES = 64 << 20;

    private final ByteBufAllocator alloc;
    /** Idle arrays per size: index i holds arrays of {@code MIN_ARRAY << i} bytes. */
    private final ArrayBlockingQueue<byte[]>[] idle;
    private final AtomicLong idleBytes = new AtomicLong();

    @SuppressWarnings("unchecked")
    FramePool(ByteBufAllocator alloc) {
        this.alloc = alloc;
        int sizes = Integer.numberOfTrailingZeros(MAX_ARRAY / MIN_ARRAY) + 1;
        this.idle = new ArrayBlockingQueue[sizes];
        for (int i = 0; i < sizes; i++) {
            idle[i] = new ArrayBlockingQueue<>((int) (IDLE_BYTES / (MIN_ARRAY << i)));
        }
    }

    /**
     * A buffer of capacity at least {@code length} for one frame, empty; its array returns to the pool
     * when the buffer is released. Null if the frame is longer than the largest pooled size.
     */
    ByteBuf take(int length) {
        if (length > MAX_ARRAY) {
            return null;
        }
        int size = Math.max(MIN_ARRAY, Integer.highestOneBit(Math.max(1, length - 1)) << 1);
        int index = Integer.numberOfTrailingZeros(size / MIN_ARRAY);
        byte[] array = idle[index].poll();
        if (array == null) {
            array = new byte[size];
        } else {
            idleBytes.addAndGet(-size);
        }
        return new Frame(alloc, array, index);
    }

    /** Idle arrays kept (for tests). */
    int idleArrays() {
        int n = 0;
        for (ArrayBlockingQueue<byte[]> q : idle) {
            n += q.size();
        }
        return n;
    }

    /** A heap buffer over a pooled array, which goes back to the pool when the buffer is released. */
    private final class Frame extends UnpooledHeapByteBuf {
        private final int sizeIndex;

        Frame(ByteBufAllocator alloc, byte[] array, int sizeIndex) {
            super(alloc, array, array.length);
            this.sizeIndex = sizeIndex;
            clear(); // wrapping an array makes it all readable: the frame starts empty
        }

        @Override
        protected void freeArray(byte[] array) {
            int size = MIN_ARRAY << sizeIndex;
            if (array.length != size) {
                return;
            }
            if (idleBytes.addAndGet(size) <= IDLE_BYTES && idle[sizeIndex].offer(array)) {
                return;
            }
            idleBytes.addAndGet(-size); // enough are idle: this one is dropped
        }
    }
}
