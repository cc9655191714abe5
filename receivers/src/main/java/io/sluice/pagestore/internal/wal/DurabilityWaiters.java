package io.sluice.pagestore.internal.wal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;

/**
 * The writes waiting until the log made them durable per its mode: each a log position and a callback.
 * The writer thread completes them after each write or sync ({@link #complete}), on its own thread;
 * the list is guarded by the log's monitor ({@link AppendBuffer#lock}), callbacks run outside it.
 */
final class DurabilityWaiters {

    private static final Logger LOG = LoggerFactory.getLogger(DurabilityWaiters.class);

    private record Waiter(long position, Consumer<Throwable> done) {
    }

    private final AppendBuffer buffer;
    private final WalProgress progress;
    private List<Waiter> waiters = new ArrayList<>(); // guarded by buffer.lock

    DurabilityWaiters(AppendBuffer buffer, WalProgress progress) {
        this.buffer = buffer;
        this.progress = progress;
    }

    /**
     * Calls {@code done} once everything up to the position is durable per the mode — with null, or with
     * the log's failure. Runs it on this thread if it already is, else on the writer thread.
     */
    void whenDurable(long position, Consumer<Throwable> done) {
        WalFailedException f = progress.failure();
        if (f == null && progress.acknowledged(position)) {
            done.accept(null);
            return;
        }
        buffer.lock.lock();
        try {
            f = progress.failure();
            if (f == null && !progress.acknowledged(position) && progress.writerEnded()) {
                f = progress.closed();
            }
            if (f == null && !progress.acknowledged(position)) {
                waiters.add(new Waiter(position, done));
                buffer.wakeWriterIfWaitingLocked();
                return;
            }
        } finally {
            buffer.lock.unlock();
        }
        done.accept(f);
    }

    /**
     * Waits until everything up to the position is durable per the mode (an interrupt is kept for later).
     *
     * @throws WalFailedException if the log failed before that
     */
    void awaitDurable(long position) {
        if (progress.failure() == null && progress.acknowledged(position)) {
            return;
        }
        CountDownLatch latch = new CountDownLatch(1);
        Throwable[] error = new Throwable[1];
        whenDurable(position, e -> {
            error[0] = e;
            latch.countDown();
        });
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (error[0] != null) {
            throw new WalFailedException("the write was applied in memory but the log could not make it durable: "
                    + error[0].getMessage(), error[0]);
        }
    }

    /**
     * Completes the waiters whose position is now durable, or all of them with the failure if the log failed or
     * its writer ended. Called by the writer thread (and by a failure), never under the monitor.
     */
    void complete() {
        List<Waiter> all;
        boolean ended;
        buffer.lock.lock();
        try {
            if (waiters.isEmpty()) {
                return;
            }
            all = waiters;
            waiters = new ArrayList<>();
            ended = progress.writerEnded();
        } finally {
            buffer.lock.unlock();
        }
        WalFailedException f = progress.failure();
        if (f == null && ended) { // a waiter the closed log never wrote for (it cannot happen through the node)
            f = progress.closed();
        }
        List<Waiter> later = null;
        for (Waiter w : all) {
            if (f == null && !progress.acknowledged(w.position)) {
                if (later == null) {
                    later = new ArrayList<>();
                }
                later.add(w);
                continue;
            }
            try {
                w.done.accept(progress.acknowledged(w.position) ? null : f);
            } catch (RuntimeException | Error e) {
                LOG.error("a completion callback of the write-ahead log threw", e);
            }
        }
        if (later != null) {
            buffer.lock.lock();
            try {
                waiters.addAll(later);
            } finally {
                buffer.lock.unlock();
            }
        }
    }
}
