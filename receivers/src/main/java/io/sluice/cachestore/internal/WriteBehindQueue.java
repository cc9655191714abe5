package io.sluice.cachestore.internal;

import io.sluice.CacheStore;
import io.sluice.CacheStoreConfig;
import io.sluice.CacheStoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Write-behind for one cache: a queue per partition, coalesced by key (a key queued again replaces
 * its queued change and takes no new slot), flushed by one daemon thread
 * ({@code sluice-write-behind-<cache>}) when {@link CacheStoreConfig#flushSize()} keys are queued or
 * every {@link CacheStoreConfig#flushInterval()}.
 *
 * <p><b>Bound.</b> Queued keys plus keys being flushed are at most {@link CacheStoreConfig#queueBound()};
 * a writer adding a new key beyond it waits in {@link #enqueue} until a flush finishes (push-back).
 *
 * <p><b>Order.</b> One flusher takes everything queued at once, and a key changed during a flush
 * waits in the fresh queue for the next one: a key's changes reach the store in the order they
 * were made, the last of a burst only.
 *
 * <p><b>Failures.</b> A failing store call is retried up to {@link CacheStoreConfig#flushAttempts()}
 * times in all, with a doubling pause from 100 ms; then its keys are reported — an error log naming
 * them, {@link #failedKeys()} counts them, {@link #lastFailure()} keeps the error — and leave the queue.
 *
 * <p>All state is guarded by {@code lock}; the store is called without it.
 */
public final class WriteBehindQueue implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(WriteBehindQueue.class);
    private static final long FIRST_RETRY_PAUSE_MS = 100;

    private final String label;
    private final CacheStore<Object, Object> store;
    private final CacheStoreConfig config;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notFull = lock.newCondition();
    private final Condition flushDue = lock.newCondition();
    private final Condition flushed = lock.newCondition();
    /** Per partition: key → value (null: removal), coalesced. Guarded by lock. */
    private final List<LinkedHashMap<Object, Object>> queues;
    /** Keys queued plus keys being flushed. Guarded by lock. */
    private int held;
    /** Keys queued (not yet taken by the flusher). Guarded by lock. */
    private int queued;
    /** Flushes finished, to let {@link #flush()} wait for one that started after its call. Guarded by lock. */
    private long flushesDone;
    private boolean flushRequested;
    private boolean closed;
    private final Thread flusher;
    /** Writes a flush's calls in parallel when {@link CacheStoreConfig#flushThreads()} &gt; 1, else null. */
    private final ExecutorService callWriters;
    private final AtomicLong writtenKeys = new AtomicLong();
    private final AtomicLong failedKeys = new AtomicLong();
    private final AtomicLong flushes = new AtomicLong();
    private volatile Throwable lastFailure;

    WriteBehindQueue(String label, CacheStore<Object, Object> store, CacheStoreConfig config, int partitions) {
        this.label = label;
        this.store = store;
        this.config = config;
        this.queues = new ArrayList<>(partitions);
        for (int p = 0; p < partitions; p++) {
            queues.add(new LinkedHashMap<>());
        }
        this.callWriters = config.flushThreads() <= 1 ? null : Executors.newFixedThreadPool(config.flushThreads(), r -> {
            Thread t = new Thread(r, "sluice-write-behind-call-" + label.replaceAll("\\W+", "-"));
            t.setDaemon(true);
            return t;
        });
        this.flusher = new Thread(this::runFlusher, "sluice-write-behind-" + label.replaceAll("\\W+", "-"));
        flusher.setDaemon(true);
        flusher.start();
    }

    /**
     * Queues the changes, waiting while the queue is full.
     *
     * @throws IllegalStateException if the queue is closed, or the thread was interrupted while waiting
     *         (the changes not yet queued are then not queued; the interrupt flag stays set)
     */
    void enqueue(StoreChanges changes) {
        lock.lock();
        try {
            for (Map.Entry<Object, StoreChanges.Change> e : changes.byKey().entrySet()) {
                if (closed) {
                    throw new IllegalStateException("write-behind of " + label + " is closed");
                }
                int partition = e.getValue().partition();
                Object key = e.getKey();
                if (queues.get(partition).containsKey(key)) {
                    LinkedHashMap<Object, Object> queue = queues.get(partition);
                    queue.remove(key); // coalesced: the last change wins and moves to the end
                    queue.put(key, e.getValue().value());
                    continue;
                }
                while (held >= config.queueBound() && !closed) {
                    flushRequested = true;
                    flushDue.signal();
                    notFull.await();
                }
                if (closed) {
                    throw new IllegalStateException("write-behind of " + label + " is closed");
                }
                // Looked up after the wait: the flusher may have taken the partition's queue meanwhile.
                queues.get(partition).put(key, e.getValue().value());
                held++;
                queued++;
            }
            if (queued >= config.flushSize()) {
                flushDue.signal();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for room in the write-behind queue of " + label, e);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Flushes what is queued now and waits until that flush is done (written or reported).
     *
     * @throws IllegalStateException if interrupted
     */
    public void flush() {
        lock.lock();
        try {
            long target = flushesDone + 2; // the flush under way (if any) may have missed what is queued
            while (flushesDone < target && flusher.isAlive() && (queued > 0 || held > 0)) {
                // Asked again each time: a round that began before this call, or the one it asked for, takes the
                // request; a write queued meanwhile would otherwise wait for the flush interval (hours, maybe).
                flushRequested = true;
                flushDue.signal();
                flushed.await(100, TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while flushing the write-behind queue of " + label, e);
        } finally {
            lock.unlock();
        }
    }

    private void runFlusher() {
        long interval = config.flushInterval().toNanos();
        while (true) {
            List<LinkedHashMap<Object, Object>> taken;
            boolean last;
            lock.lock();
            try {
                long wait = interval;
                while (!closed && !flushRequested && queued < config.flushSize() && wait > 0) {
                    wait = flushDue.awaitNanos(wait);
                }
                flushRequested = false;
                last = closed;
                taken = takeAll();
            } catch (InterruptedException e) {
                // Nobody interrupts the flusher but close(); drain and stop.
                lock.lock();
                try {
                    closed = true;
                    taken = takeAll();
                } finally {
                    lock.unlock();
                }
                last = true;
            } finally {
                lock.unlock();
            }
            int count = write(taken);
            lock.lock();
            try {
                held -= count;
                flushesDone++;
                notFull.signalAll();
                flushed.signalAll();
                if (last && queued == 0) {
                    return;
                }
                if (last) {
                    // Still queued after close: a writer that was waiting for room got in; take it next round.
                    flushRequested = true;
                }
            } finally {
                lock.unlock();
            }
        }
    }

    /** Takes every non-empty partition queue, leaving fresh ones. Under lock. */
    private List<LinkedHashMap<Object, Object>> takeAll() {
        List<LinkedHashMap<Object, Object>> taken = new ArrayList<>();
        for (int p = 0; p < queues.size(); p++) {
            LinkedHashMap<Object, Object> q = queues.get(p);
            if (!q.isEmpty()) {
                taken.add(q);
                queues.set(p, new LinkedHashMap<>());
                queued -= q.size();
            }
        }
        return taken;
    }

    /** Writes the taken queues (each key once across them: a key has one partition); returns their key count. */
    private int write(List<LinkedHashMap<Object, Object>> taken) {
        int count = 0;
        StoreChanges all = new StoreChanges(null);
        for (LinkedHashMap<Object, Object> q : taken) {
            for (Map.Entry<Object, Object> e : q.entrySet()) {
                all.add(0, e.getKey(), e.getValue());
            }
            count += q.size();
        }
        if (count == 0) {
            return 0;
        }
        flushes.incrementAndGet();
        // Retried call by call: a call that succeeded is not repeated.
        int max = store.maxBatchSize();
        int chunk = max < 1 ? count : max;
        List<StoreChanges> calls = new ArrayList<>();
        StoreChanges current = null;
        for (Map.Entry<Object, StoreChanges.Change> e : all.byKey().entrySet()) {
            if (current == null || current.size() == chunk) {
                current = new StoreChanges(null);
                calls.add(current);
            }
            current.add(0, e.getKey(), e.getValue().value());
        }
        if (callWriters == null || calls.size() == 1) {
            for (StoreChanges call : calls) {
                writeWithRetries(call);
            }
            return count;
        }
        // Each key is in one call; the next flush waits for all of them, so per-key order holds.
        List<Future<?>> running = new ArrayList<>(calls.size());
        for (StoreChanges call : calls) {
            running.add(callWriters.submit(() -> writeWithRetries(call)));
        }
        boolean interrupted = false;
        for (Future<?> f : running) {
            while (true) {
                try {
                    f.get();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true; // finish the flush: its keys' slots must be freed
                } catch (java.util.concurrent.ExecutionException e) {
                    LOG.error("write-behind of {}: a flush call failed unexpectedly", label, e.getCause());
                    break;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return count;
    }

    private void writeWithRetries(StoreChanges call) {
        long pause = FIRST_RETRY_PAUSE_MS;
        for (int attempt = 1; ; attempt++) {
            try {
                StoreWrites.write(store, label, call);
                writtenKeys.addAndGet(call.size());
                return;
            } catch (RuntimeException e) {
                if (attempt >= config.flushAttempts()) {
                    failedKeys.addAndGet(call.size());
                    lastFailure = e;
                    List<Object> keys = new ArrayList<>(call.byKey().keySet());
                    LOG.error("write-behind of {} gave up on {} key(s) after {} attempt(s); they are in memory but not "
                                    + "in the store: {}{}", label, keys.size(), attempt,
                            keys.subList(0, Math.min(keys.size(), CacheStoreException.MAX_NAMED_KEYS)),
                            keys.size() > CacheStoreException.MAX_NAMED_KEYS ? " ..." : "", e);
                    return;
                }
                LOG.warn("write-behind of {}: attempt {} of {} keys failed, retrying in {} ms: {}", label, attempt,
                        call.size(), pause, e.toString());
                try {
                    Thread.sleep(pause);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                }
                pause = Math.min(pause * 2, 5_000);
            }
        }
    }

    /** Keys queued or being flushed now. */
    public int pending() {
        lock.lock();
        try {
            return held;
        } finally {
            lock.unlock();
        }
    }

    /** Keys the store confirmed since start. */
    public long writtenKeys() {
        return writtenKeys.get();
    }

    /** Keys given up on after the last attempt (reported in the log). */
    public long failedKeys() {
        return failedKeys.get();
    }

    /** Flushes that wrote at least one key. */
    public long flushes() {
        return flushes.get();
    }

    /** The error of the last given-up flush call, or null. */
    public Throwable lastFailure() {
        return lastFailure;
    }

    /**
     * Stops taking changes, flushes everything queued (with retries; what still fails is reported) and
     * stops the flusher. Waits for it; calling again has no effect.
     */
    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
            flushDue.signal();
            notFull.signalAll();
        } finally {
            lock.unlock();
        }
        boolean interrupted = false;
        while (flusher.isAlive()) {
            try {
                flusher.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (callWriters != null) {
            callWriters.shutdown();
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
