package io.sluice.node.internal.cluster;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;

/**
 * What this node's partition moves did, for the status ({@link ClusterStatus}) and as meters (docs/metrics.md):
 *
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th>name</th><th>type</th><th>meaning</th></tr>
 *   <tr><td>sluice.cluster.partitions.served</td><td>gauge</td><td>partitions this node serves now</td></tr>
 *   <tr><td>sluice.cluster.moves</td><td>counter</td><td>partitions taken over from another member (their entries
 *       pulled)</td></tr>
 *   <tr><td>sluice.cluster.moves.in.progress</td><td>gauge</td><td>partitions being pulled now</td></tr>
 *   <tr><td>sluice.cluster.moved.entries</td><td>counter</td><td>entries pulled from other members</td></tr>
 *   <tr><td>sluice.cluster.moved.bytes</td><td>counter (bytes)</td><td>entry bytes pulled (headers, keys,
 *       values)</td></tr>
 *   <tr><td>sluice.cluster.dropped.entries</td><td>counter</td><td>entries of partitions another member owns now,
 *       removed here</td></tr>
 * </table>
 *
 * Thread-safe.
 */
final class MoveStats implements AutoCloseable {

    static final String PARTITIONS_SERVED = "sluice.cluster.partitions.served";
    static final String MOVES = "sluice.cluster.moves";
    static final String MOVES_IN_PROGRESS = "sluice.cluster.moves.in.progress";
    static final String MOVED_ENTRIES = "sluice.cluster.moved.entries";
    static final String MOVED_BYTES = "sluice.cluster.moved.bytes";
    static final String DROPPED_ENTRIES = "sluice.cluster.dropped.entries";

    private final MeterRegistry registry;
    private final List<Meter> meters = new ArrayList<>();
    private final Counter moves;
    private final Counter movedEntries;
    private final Counter movedBytes;
    private final Counter droppedEntries;
    private final AtomicInteger inProgress = new AtomicInteger();
    private final AtomicLong done = new AtomicLong();
    private final AtomicLong entries = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong lastMillis = new AtomicLong(-1);
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong droppedPartitions = new AtomicLong();

    MoveStats(MeterRegistry registry, IntSupplier served) {
        this.registry = registry;
        meters.add(Gauge.builder(PARTITIONS_SERVED, served::getAsInt)
                .description("partitions this node serves now").register(registry));
        meters.add(Gauge.builder(MOVES_IN_PROGRESS, inProgress, AtomicInteger::get)
                .description("partitions being pulled from another member now").register(registry));
        moves = add(Counter.builder(MOVES).description("partitions taken over from another member").register(registry));
        movedEntries = add(Counter.builder(MOVED_ENTRIES).description("entries pulled from other members")
                .register(registry));
        movedBytes = add(Counter.builder(MOVED_BYTES).baseUnit("bytes")
                .description("entry bytes pulled from other members").register(registry));
        droppedEntries = add(Counter.builder(DROPPED_ENTRIES)
                .description("entries of partitions another member owns now, removed here").register(registry));
    }

    private Counter add(Counter c) {
        meters.add(c);
        return c;
    }

    /** A pull starts. */
    void started() {
        inProgress.incrementAndGet();
    }

    /** A pull ended (done or failed); a done one moved this much. */
    void ended(boolean ok, long movedEntryCount, long movedByteCount, long millis) {
        inProgress.decrementAndGet();
        if (ok) {
            done.incrementAndGet();
            moves.increment();
            lastMillis.set(millis);
        }
        entries.addAndGet(movedEntryCount);
        bytes.addAndGet(movedByteCount);
        movedEntries.increment(movedEntryCount);
        movedBytes.increment(movedByteCount);
    }

    /** One partition file on its way, as its transfer reports it (issue 28's file moves). Thread-safe. */
    interface Transfer {
        /** {@code bytes} more bytes of the file were sent (outbound) or received and checked (inbound). */
        void progressed(long bytes);

        /** The transfer ended: the whole file moved and was checked ({@code ok}), or it failed. Called once. */
        void ended(boolean ok);
    }

    private final java.util.Set<TransferState> transfers = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final AtomicLong bytesSent = new AtomicLong();
    private final AtomicLong bytesReceived = new AtomicLong();

    /**
     * A partition file transfer starts: {@code inbound} on the node building the partition, outbound on the node
     * sending it; {@code totalBytes} is the file's length.
     */
    Transfer transferStarted(int partition, String peer, boolean inbound, long totalBytes) {
        TransferState t = new TransferState(partition, peer, inbound, totalBytes);
        transfers.add(t);
        return t;
    }

    /** Bytes of partition files this node sent, and received (checked), since it started. */
    long bytesSent() {
        return bytesSent.get();
    }

    long bytesReceived() {
        return bytesReceived.get();
    }

    /** A transfer in progress, for the status. */
    record TransferView(int partition, String peer, boolean inbound, long totalBytes, long doneBytes) {
    }

    /** The transfers in progress now. */
    List<TransferView> transfers() {
        List<TransferView> views = new ArrayList<>();
        for (TransferState t : transfers) {
            views.add(new TransferView(t.partition, t.peer, t.inbound, t.total, t.done.get()));
        }
        return views;
    }

    private final class TransferState implements Transfer {
        final int partition;
        final String peer;
        final boolean inbound;
        final long total;
        final AtomicLong done = new AtomicLong();

        TransferState(int partition, String peer, boolean inbound, long total) {
            this.partition = partition;
            this.peer = peer;
            this.inbound = inbound;
            this.total = total;
        }

        @Override
        public void progressed(long bytes) {
            done.addAndGet(bytes);
            (inbound ? bytesReceived : bytesSent).addAndGet(bytes);
        }

        @Override
        public void ended(boolean ok) {
            transfers.remove(this);
        }
    }

    /** A retired partition's entries were removed here. */
    void dropped(long entryCount) {
        droppedPartitions.incrementAndGet();
        dropped.addAndGet(entryCount);
        droppedEntries.increment(entryCount);
    }

    int inProgress() {
        return inProgress.get();
    }

    long done() {
        return done.get();
    }

    long entries() {
        return entries.get();
    }

    long bytes() {
        return bytes.get();
    }

    /** Milliseconds the last completed pull took, or -1. */
    long lastMillis() {
        return lastMillis.get();
    }

    long droppedPartitions() {
        return droppedPartitions.get();
    }

    long droppedEntries() {
        return dropped.get();
    }

    /** Takes the meters out of the registry. */
    @Override
    public void close() {
        for (Meter m : meters) {
            registry.remove(m);
        }
        meters.clear();
    }
}
