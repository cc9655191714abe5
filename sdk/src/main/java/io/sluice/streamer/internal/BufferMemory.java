package io.sluice.streamer.internal;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Bounds the encoded bytes a streamer holds, buffered or in flight
 * ({@link io.sluice.StreamerOptions#bufferMemory()}). Partition buffers reserve ahead in small
 * chunks (their credit, returned when the buffer is sealed); a sealed batch's bytes are released
 * when it reaches a final state. An adder that finds the memory full waits here for its exact bytes.
 *
 * <p>The fast path is one CAS; only a caller that finds the memory full takes the lock and waits.
 */
final class BufferMemory {

    private final long limit;
    private final AtomicLong used = new AtomicLong();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition freed = lock.newCondition();
    /** Callers waiting for memory; releasers signal only when there are some. */
    private volatile int waiters;
    private volatile boolean closed;

    BufferMemory(long limit) {
        this.limit = limit;
    }

    long limit() {
        return limit;
    }

    /** Bytes reserved now. */
    long used() {
        return used.get();
    }

    /**
     * Reserves without waiting. An amount larger than the whole limit is granted when nothing is
     * reserved, so that one entry as large as the limit can never block forever.
     */
    boolean tryReserve(long bytes) {
        while (true) {
            long current = used.get();
            if (current + bytes > limit && current != 0) {
                return false;
            }
            if (used.compareAndSet(current, current + bytes)) {
                return true;
            }
        }
    }

    /**
     * Reserves, waiting for releases up to {@code maxWaitNanos}.
     *
     * @return true if reserved, false if the time ran out
     * @throws Closed               if the memory was closed while waiting
     * @throws InterruptedException  if interrupted while waiting
     */
    boolean reserve(long bytes, long maxWaitNanos) throws InterruptedException {
        if (tryReserve(bytes)) {
            return true;
        }
        long deadline = System.nanoTime() + maxWaitNanos;
        lock.lockInterruptibly();
        try {
            // Register before re-checking: a release after this point sees waiters > 0 and signals.
            waiters++;
            try {
                while (true) {
                    if (closed) {
                        throw new Closed();
                    }
                    if (tryReserve(bytes)) {
                        return true;
                    }
                    long remaining = deadline - System.nanoTime();
                    if (remaining <= 0) {
                        return false;
                    }
                    freed.awaitNanos(remaining);
                }
            } finally {
                waiters--;
            }
        } finally {
            lock.unlock();
        }
    }

    void release(long bytes) {
        used.addAndGet(-bytes);
        if (waiters > 0) {
            signalAll();
        }
    }

    /** Wakes every waiter; they fail with IllegalStateException. */
    void close() {
        closed = true;
        signalAll();
    }

    private void signalAll() {
        lock.lock();
        try {
            freed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Thrown to a waiter when the streamer closes. */
    static final class Closed extends IllegalStateException {
        Closed() {
            super("the streamer was closed while waiting for buffer memory");
        }
    }
}
