package io.sluice.streamer.internal;

import io.sluice.DataStreamer;
import io.sluice.Receivers;
import io.sluice.SluiceException;
import io.sluice.StreamerException;
import io.sluice.StreamerMetrics;
import io.sluice.StreamerOptions;
import io.sluice.StreamerTimeoutException;
import io.sluice.affinity.internal.Partitioner;
import io.sluice.binary.BinaryObjectBuilder;
import io.sluice.binary.internal.DirectBuilder;
import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.binary.internal.ValueCodec;
import io.sluice.protocol.internal.EntryBatch;
import io.sluice.protocol.internal.StreamerTransport;

import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The {@link DataStreamer} of both the embedded node and the remote client: a thin facade over
 * {@link PartitionBuffers} (accumulate), {@link BatchSender} (send), {@link BatchLedger} (track
 * batches to their end), {@link BufferMemory} (backpressure) and {@link AutoFlusher} (send by age).
 *
 * <p>An added entry is encoded on the calling thread into a thread-local scratch, hashed to its
 * partition, and copied into the partition's buffer under that buffer's lock; nothing is allocated
 * per entry and no thread hop happens per entry. Batch futures are completed by the thread that
 * completes the transport's response, so callbacks chained on them run there: they should not block
 * (and must not call {@link #flush()}).
 *
 * <p>A partition's batches reach the transport in the order they were sealed (a topology change may
 * reorder the batches it moves), though several may be in flight at once; whether the node applies
 * them in that order is the transport's business (the embedded node does, one stripe per partition).
 *
 * <p>The future {@code addData} returns is shared by every entry of its batch and is read-only:
 * {@code complete} throws, {@code cancel} does nothing, {@code orTimeout} applies to a copy. A batch
 * is not retried: a failed batch or request fails its future and is counted in the next
 * {@link #flush()} or {@link #close()} report. {@code addData(Map)} and {@code addData(Collection)}
 * add entry by entry: when one is rejected, those before it stay added.
 */
public final class Streamer<K, V> implements DataStreamer<K, V> {

    /** Longest wait for buffer memory before re-checking whether open buffers must be sent to free it. */
    private static final long MEMORY_RECHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private final String cacheName;
    private final StreamerOptions options;
    /** Encodes keys and values; a builder's object is written by the builder itself if it is this codec's. */
    private final ValueCodec codec;
    private final Runnable onClose;
    private final int partitions;
    private final int maxEntrySize;
    private final long maxBlockNanos;
    private final EntryEncoder encoder;
    private final BufferMemory memory;
    private final StreamerCounters counters;
    private final BatchLedger ledger;
    private final BatchSender sender;
    private final PartitionBuffers buffers;
    private final AutoFlusher autoFlusher;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Read on every add; set before the buffers refuse appends, so most late adds fail before encoding. */
    private volatile boolean closing;

    /**
     * @param cacheName the cache (it must exist: the transport is asked for its partitions)
     * @param options   the options
     * @param transport how batches reach nodes
     * @param codec     encodes keys and values
     * @param onClose   run once when the streamer has closed (the owner forgets it)
     * @throws io.sluice.CacheNotFoundException if the cache does not exist
     */
    public Streamer(String cacheName, StreamerOptions options, StreamerTransport transport, ValueCodec codec,
                    Runnable onClose) {
        this(cacheName, options, transport, codec, onClose, null);
    }

    /**
     * @param arrays the pool of batch arrays this streamer shares with its owner's other streamers
     *               ({@link BatchArrays#shared()}); null for a pool of its own
     */
    public Streamer(String cacheName, StreamerOptions options, StreamerTransport transport, ValueCodec codec,
                    Runnable onClose, BatchArrays arrays) {
        this.cacheName = Objects.requireNonNull(cacheName, "cacheName");
        this.options = Objects.requireNonNull(options, "options");
        Objects.requireNonNull(transport, "transport");
        this.codec = Objects.requireNonNull(codec, "codec");
        this.encoder = new EntryEncoder(codec);
        this.onClose = onClose == null ? () -> { } : onClose;
        this.partitions = transport.partitions(cacheName);
        if (partitions < 1) {
            throw new IllegalStateException("cache '" + cacheName + "' has " + partitions
                    + " partitions; it must have at least 1");
        }
        this.maxEntrySize = options.maxEntrySize();
        this.maxBlockNanos = Durations.toNanos(options.maxBlock());
        this.memory = new BufferMemory(options.bufferMemory());
        this.counters = new StreamerCounters(memory);
        this.ledger = new BatchLedger(memory, counters);
        this.sender = new BatchSender(cacheName, options.receiver(), options.allowOverwrite(), options.skipStore(),
                options.perNodeParallelOperations(), transport, new PartitionOwners(transport, partitions), counters);
        this.buffers = new PartitionBuffers(partitions, options.perPartitionBufferSize(),
                options.perPartitionBufferBytes(), memory, ledger, sender, batchArrays(options, partitions, arrays));
        counters.openBuffers(buffers::openEntries, buffers::openCredit);
        this.autoFlusher = AutoFlusher.startIfEnabled(cacheName, buffers, options.autoFlushInterval());
    }

    @Override
    public CompletableFuture<Void> addData(K key, V value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        return add(key, value, false);
    }

    @Override
    public CompletableFuture<Void> removeData(K key) {
        Objects.requireNonNull(key, "key");
        return add(key, null, true);
    }

    @Override
    public CompletableFuture<Void> addData(Map<? extends K, ? extends V> entries) {
        Objects.requireNonNull(entries, "entries");
        BatchFutures futures = new BatchFutures();
        for (Map.Entry<? extends K, ? extends V> entry : entries.entrySet()) {
            futures.add(addData(entry.getKey(), entry.getValue()));
        }
        return futures.all();
    }

    @Override
    public CompletableFuture<Void> addData(Collection<? extends Map.Entry<? extends K, ? extends V>> entries) {
        Objects.requireNonNull(entries, "entries");
        BatchFutures futures = new BatchFutures();
        for (Map.Entry<? extends K, ? extends V> entry : entries) {
            Objects.requireNonNull(entry, "entry");
            futures.add(addData(entry.getKey(), entry.getValue()));
        }
        return futures.all();
    }

    @Override
    public CompletableFuture<Void> addFromBuilder(K key, BinaryObjectBuilder value) {
        Objects.requireNonNull(value, "value");
        if (!(value instanceof DirectBuilder builder) || builder.context() != codec) {
            throw new IllegalArgumentException("the builder was not made by the binary() of the Sluice that opened "
                    + "the streamer of cache '" + cacheName + "'; build the object (addData(key, builder.build())) "
                    + "or take the builder from that Sluice's binary()");
        }
        GrowableBuffer scratch;
        try {
            Objects.requireNonNull(key, "key");
            if (closing) {
                throw closedException();
            }
            scratch = encoder.encode(key, builder);
        } catch (RuntimeException | Error e) {
            builder.clear(); // as addData(key, builder.build()) would have left it
            throw e;
        }
        return append(key, scratch);
    }

    /**
     * The hot path: encode into the thread's scratch, hash the key bytes, then under the partition's
     * lock take the entry's memory from the buffer's credit and copy the entry in. No shared counter
     * is written per entry.
     */
    private CompletableFuture<Void> add(Object key, Object value, boolean removal) {
        if (closing) {
            throw closedException();
        }
        return append(key, encoder.encode(key, value, removal));
    }

    /** Copies the entry encoded in the thread's scratch into its partition's buffer. */
    private CompletableFuture<Void> append(Object key, GrowableBuffer scratch) {
        byte[] entry = scratch.array();
        int length = scratch.position();
        int keyLength = EntryEncoder.keyLength(scratch);
        try {
            int size = length - EntryBatch.ENTRY_HEADER;
            if (size > maxEntrySize) {
                throw oversized(key, size);
            }
            int partition = Partitioner.partition(entry, EntryBatch.ENTRY_HEADER, keyLength, partitions);
            BatchFuture joined = buffers.append(partition, entry, length, false);
            if (joined == null) {
                if (buffers.isClosed()) {
                    throw closedException();
                }
                // The memory is full. Waiting may send batches whose completion runs callbacks on this thread,
                // which may add entries and reuse the scratch: keep a copy of this entry (slow path only).
                entry = scratch.toByteArray();
                reserveSlowly(length);
                joined = buffers.append(partition, entry, length, true);
                if (joined == null) { // closed meanwhile
                    memory.release(length);
                    throw closedException();
                }
            }
            return joined;
        } finally {
            encoder.trim(scratch);
        }
    }

    private void reserveSlowly(int length) {
        long deadline = System.nanoTime() + maxBlockNanos;
        try {
            while (true) {
                // Batches in flight free memory when they complete; open buffers only when sent. When they
                // hold most of it, send them, or nothing would ever free it (auto-flush may be off).
                if (ledger.sealedBytes() < memory.limit() / 2) {
                    buffers.sealAll();
                }
                long remaining = deadline - System.nanoTime();
                if (memory.reserve(length, Math.max(0, Math.min(remaining, MEMORY_RECHECK_NANOS)))) {
                    return;
                }
                if (deadline - System.nanoTime() <= 0) {
                    throw new StreamerTimeoutException("addData to cache '" + cacheName + "' waited "
                            + Durations.describe(options.maxBlock()) + " for " + length + " bytes of buffer memory: "
                            + memory.used() + " of " + memory.limit() + " bytes (StreamerOptions.bufferMemory) "
                            + "are buffered or in flight; raise StreamerOptions.bufferMemory or "
                            + "StreamerOptions.maxBlock, or check that the node is applying batches");
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SluiceException("addData to cache '" + cacheName
                    + "' was interrupted while waiting for buffer memory", e);
        } catch (BufferMemory.Closed closedWhileWaiting) {
            throw closedException();
        }
    }

    /**
     * Applied batches' arrays are reused for a built-in receiver, which keeps nothing that reads them:
     * in the owner's shared pool, else in one of this streamer's own (up to one array per partition and
     * a quarter of the buffer memory).
     */
    private static BatchArrays batchArrays(StreamerOptions options, int partitions, BatchArrays shared) {
        String receiver = options.receiver().name();
        boolean builtIn = receiver.equals(Receivers.ISOLATED) || receiver.equals(Receivers.INDIVIDUAL)
                || receiver.equals(Receivers.BATCHED);
        if (!builtIn) {
            return BatchArrays.disabled();
        }
        return shared != null ? shared : new BatchArrays(partitions, options.bufferMemory() / 4);
    }

    @Override
    public void flush() {
        if (closed.get()) {
            throw closedException();
        }
        buffers.sealAll();
        awaitUnfinished("flush");
        throwFailures("flush");
    }

    @Override
    public void tryFlush() {
        if (closed.get()) {
            throw closedException();
        }
        buffers.sealAll();
    }

    @Override
    public void close() {
        close(false);
    }

    @Override
    public void close(boolean cancel) {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        closing = true;
        try {
            if (autoFlusher != null) {
                autoFlusher.stop();
            }
            List<Batch> rest = buffers.closeAndSeal();
            // Threads blocked for memory would only be refused by the closed buffers: fail them now.
            memory.close();
            if (cancel) {
                cancelUnfinished("the streamer of cache '" + cacheName + "' was closed with cancel");
            } else {
                sender.sendAll(rest);
                try {
                    awaitUnfinished("close");
                } catch (RuntimeException timedOutOrInterrupted) {
                    // No future stays pending, even when close gives up waiting.
                    cancelUnfinished("close of cache '" + cacheName + "' gave up waiting for the batch");
                    throw timedOutOrInterrupted;
                }
                throwFailures("close");
            }
        } finally {
            onClose.run();
        }
    }

    private void cancelUnfinished(String why) {
        String reason = why + "; the batch may or may not have been applied";
        Batch[] batches = ledger.unfinished();
        for (Batch batch : batches) {
            batch.cancel(reason);
        }
        // A batch another thread was completing as we cancelled is not cancelled; wait the instant it takes
        // that thread to complete its future, so that none is pending when close returns.
        boolean interrupted = false;
        for (Batch batch : batches) {
            while (!batch.future().isDone()) {
                try {
                    batch.future().get();
                } catch (ExecutionException | CancellationException finished) {
                    // done either way
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits for every batch sealed so far, up to the timeout. */
    private void awaitUnfinished(String operation) {
        Batch[] batches = ledger.unfinished();
        long deadline = System.nanoTime() + Durations.toNanos(options.timeout());
        for (Batch batch : batches) {
            try {
                batch.future().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (ExecutionException | CancellationException failed) {
                // counted by the ledger; reported below
            } catch (TimeoutException e) {
                long pendingBatches = 0;
                long pendingEntries = 0;
                for (Batch b : batches) {
                    if (!b.isDone()) {
                        pendingBatches++;
                        pendingEntries += b.size();
                    }
                }
                throw new StreamerTimeoutException(operation + " of cache '" + cacheName + "' waited "
                        + Durations.describe(options.timeout()) + " (StreamerOptions.timeout) and " + pendingBatches
                        + " batches (" + pendingEntries + " entries) are still not applied; raise "
                        + "StreamerOptions.timeout or check that the node is applying batches");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SluiceException(operation + " of cache '" + cacheName + "' was interrupted", e);
            }
        }
    }

    private void throwFailures(String operation) {
        FailureLog.Report report = ledger.failures().take();
        if (report != null) {
            throw new StreamerException(report.entries() + " entries in " + report.batches()
                    + " batches failed to load into cache '" + cacheName + "' (reported by " + operation
                    + "); first cause: " + report.firstCause(), report.entries(), report.firstCause());
        }
    }

    private IllegalArgumentException oversized(Object key, int size) {
        String name = String.valueOf(key);
        if (name.length() > 64) {
            name = name.substring(0, 64) + "...";
        }
        return new IllegalArgumentException("entry for key " + name + " is " + size
                + " bytes encoded; the maximum entry size is " + maxEntrySize
                + " bytes (StreamerOptions.maxEntrySize)");
    }

    private IllegalStateException closedException() {
        return new IllegalStateException("the streamer of cache '" + cacheName + "' is closed");
    }

    @Override
    public StreamerOptions options() {
        return options;
    }

    @Override
    public StreamerMetrics metrics() {
        return counters;
    }

    @Override
    public String toString() {
        return "Streamer{cache=" + cacheName + ", partitions=" + partitions + ", closed=" + closed.get()
                + ", " + counters + '}';
    }

    /** The distinct batch futures of a multi-entry add, combined. */
    private static final class BatchFutures {
        private final Set<CompletableFuture<Void>> distinct = Collections.newSetFromMap(new IdentityHashMap<>());
        private CompletableFuture<Void> last;

        void add(CompletableFuture<Void> future) {
            if (future != last) {
                distinct.add(future);
                last = future;
            }
        }

        CompletableFuture<Void> all() {
            if (distinct.isEmpty()) {
                return CompletableFuture.completedFuture(null);
            }
            if (distinct.size() == 1) {
                return last;
            }
            return CompletableFuture.allOf(distinct.toArray(new CompletableFuture<?>[0]));
        }
    }
}
