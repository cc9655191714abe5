package io.sluice.node.internal.cluster;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
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
 *   <tr><td>sluice.cluster.move.sent.bytes</td><td>counter (bytes)</td><td>partition file bytes sent to members
 *       building a partition</td></tr>
 *   <tr><td>sluice.cluster.move.received.bytes</td><td>counter (bytes)</td><td>bytes received to build partitions
 *       here: partition file bytes (checked) and entry bytes of finished entry pulls</td></tr>
 *   <tr><td>sluice.cluster.move.partitions.in.progress</td><td>gauge, tag direction=in|out</td><td>partitions being
 *       built here from another member (in: takeovers and backups catching up, by files or entries), and partition
 *       files being sent from here (out)</td></tr>
 *   <tr><td>sluice.cluster.move.partitions.waiting</td><td>gauge</td><td>builds waiting for a permit
 *       ({@link MoveThrottle})</td></tr>
 *   <tr><td>sluice.cluster.move.eta.seconds</td><td>gauge (seconds)</td><td>estimated time left for the moves in
 *       progress and waiting here ({@link #etaSeconds}); 0 when none, NaN when not known yet</td></tr>
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
    static final String MOVE_BYTES_SENT = "sluice.cluster.move.sent.bytes";
    static final String MOVE_BYTES_RECEIVED = "sluice.cluster.move.received.bytes";
    static final String MOVE_PARTITIONS_IN_PROGRESS = "sluice.cluster.move.partitions.in.progress";
    static final String MOVE_PARTITIONS_WAITING = "sluice.cluster.move.partitions.waiting";
    static final String MOVE_ETA_SECONDS = "sluice.cluster.move.eta.seconds";
    /** The tag of {@link #MOVE_PARTITIONS_IN_PROGRESS}: {@code in} or {@code out}. */
    static final String DIRECTION = "direction";

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
    private final AtomicLong bytesSent = new AtomicLong();
    private final AtomicLong bytesReceived = new AtomicLong();
    private final AtomicInteger waiting = new AtomicInteger();
    /** Partitions whose build waits for a permit, with how many builds of each wait. */
    private final Map<Integer, Integer> waitingPartitions = new ConcurrentHashMap<>();
    /** Builds in progress here, by partition (a partition is built by one thread at a time: its move lock). */
    private final Map<Integer, Build> builds = new ConcurrentHashMap<>();
    private final AtomicLong buildsDone = new AtomicLong();
    /** Partitions a file came in for since their build started: their bytes are counted as the file's. */
    private final Set<Integer> builtByFile = ConcurrentHashMap.newKeySet();
    private final RecentRate rate = new RecentRate();
    private final RecentRate buildRate = new RecentRate();

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
        meters.add(FunctionCounter.builder(MOVE_BYTES_SENT, bytesSent, AtomicLong::get).baseUnit("bytes")
                .description("partition file bytes sent to members building a partition").register(registry));
        meters.add(FunctionCounter.builder(MOVE_BYTES_RECEIVED, bytesReceived, AtomicLong::get).baseUnit("bytes")
                .description("bytes received to build partitions here (partition files, entry pulls)")
                .register(registry));
        meters.add(Gauge.builder(MOVE_PARTITIONS_IN_PROGRESS, this, s -> s.movingIn().size()).tag(DIRECTION, "in")
                .description("partitions being built here, or sent from here, now").register(registry));
        meters.add(Gauge.builder(MOVE_PARTITIONS_IN_PROGRESS, this, s -> s.movingOut().size()).tag(DIRECTION, "out")
                .description("partitions being built here, or sent from here, now").register(registry));
        meters.add(Gauge.builder(MOVE_PARTITIONS_WAITING, waiting, AtomicInteger::get)
                .description("partition builds waiting for a permit (maxConcurrentMoves)").register(registry));
        meters.add(Gauge.builder(MOVE_ETA_SECONDS, this, MoveStats::etaSeconds).baseUnit("seconds")
                .description("estimated time left for the moves in progress and waiting here").register(registry));
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

    private final Set<TransferState> transfers = ConcurrentHashMap.newKeySet();

    /**
     * A partition file transfer starts: {@code inbound} on the node building the partition, outbound on the node
     * sending it; {@code totalBytes} is the file's length.
     */
    Transfer transferStarted(int partition, String peer, boolean inbound, long totalBytes) {
        TransferState t = new TransferState(partition, peer, inbound, totalBytes);
        if (inbound) {
            builtByFile.add(partition);
        }
        transfers.add(t);
        return t;
    }

    /**
     * Bytes of partition files this node sent, and received (checked; with the entry bytes of finished entry pulls),
     * since it started.
     */
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

    /** A partition being built here from another member (a takeover, or a backup catching up), by any method. */
    record Build(int partition, String from, boolean takeover, long startNanos) {
    }

    /** A build of the partition waits for a permit ({@code true}), or stopped waiting. */
    void waiting(int partition, boolean waits) {
        waiting.addAndGet(waits ? 1 : -1);
        waitingPartitions.compute(partition, (p, n) -> {
            int left = (n == null ? 0 : n) + (waits ? 1 : -1);
            return left <= 0 ? null : left;
        });
    }

    /** The partitions whose build waits for a permit now. */
    Set<Integer> waitingPartitions() {
        return new TreeSet<>(waitingPartitions.keySet());
    }

    int waiting() {
        return waiting.get();
    }

    /** A build of the partition from {@code from} starts here (it holds a permit). */
    void buildStarted(int partition, String from, boolean takeover) {
        builtByFile.remove(partition);
        builds.put(partition, new Build(partition, from, takeover, System.nanoTime()));
    }

    /**
     * The build ended; {@code entryBytes} are the bytes it says it moved, counted as received unless a file came in
     * for the partition meanwhile (its {@link Transfer} counted those).
     */
    void buildEnded(int partition, boolean ok, long entryBytes) {
        Build b = builds.remove(partition);
        if (!builtByFile.remove(partition)) {
            bytesReceived.addAndGet(entryBytes);
        }
        if (ok && b != null) {
            buildsDone.incrementAndGet();
        }
    }

    /** The builds in progress here now. */
    List<Build> builds() {
        return new ArrayList<>(builds.values());
    }

    /** Partitions moving in: being built here (by entries or files). */
    Set<Integer> movingIn() {
        Set<Integer> in = new TreeSet<>(builds.keySet());
        for (TransferState t : transfers) {
            if (t.inbound) {
                in.add(t.partition);
            }
        }
        return in;
    }

    /** Partitions moving out: their files being sent from here. */
    Set<Integer> movingOut() {
        Set<Integer> out = new TreeSet<>();
        for (TransferState t : transfers) {
            if (!t.inbound) {
                out.add(t.partition);
            }
        }
        return out;
    }

    /** Bytes per second sent and received for moves here lately (about the last {@link RecentRate#WINDOW_NANOS}). */
    double bytesPerSecond() {
        return rate.perSecond(bytesSent.get() + bytesReceived.get());
    }

    /**
     * Estimated seconds until the moves in progress and waiting here are done: 0 when none; the file bytes left
     * over the recent byte rate; for builds whose size is not known (entry pulls, waiting builds) their count over
     * the recent rate of finished builds (which counts what a build costs besides its bytes: Helix's transitions,
     * the owner log); the larger of the two. NaN until there is a rate to go by.
     */
    double etaSeconds() {
        long bytesLeft = 0;
        int unsized = waiting.get();
        Set<Integer> sized = new TreeSet<>();
        for (TransferState t : transfers) {
            bytesLeft += Math.max(0, t.total - t.done.get());
            if (t.inbound) {
                sized.add(t.partition);
            }
        }
        for (Integer p : builds.keySet()) {
            unsized += sized.contains(p) ? 0 : 1;
        }
        double perSecond = bytesPerSecond();
        double buildsPerSecond = buildRate.perSecond(buildsDone.get());
        if (bytesLeft == 0 && unsized == 0) {
            return 0;
        }
        double files = bytesLeft == 0 ? 0 : perSecond > 0 ? bytesLeft / perSecond : Double.NaN;
        double others = unsized == 0 ? 0 : buildsPerSecond > 0 ? unsized / buildsPerSecond : Double.NaN;
        return Double.isNaN(files) || Double.isNaN(others) ? Double.NaN : Math.max(files, others);
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
