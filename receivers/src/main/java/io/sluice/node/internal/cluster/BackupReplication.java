package io.sluice.node.internal.cluster;

import io.sluice.CacheNotFoundException;
import io.sluice.client.internal.PeerConnection;
import io.sluice.protocol.internal.CacheNamesCodec;
import io.sluice.node.internal.NodeCache;
import io.sluice.pagestore.internal.BatchApplyException;
import io.sluice.pagestore.internal.BatchMode;
import io.sluice.protocol.internal.ClusterMap;
import io.sluice.protocol.internal.ErrorKind;
import io.sluice.protocol.internal.Op;
import io.sluice.protocol.internal.ReplicaCodec;
import io.sluice.protocol.internal.Wire;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The backup's side of replication (issue 27), per partition this node backs (Helix SLAVE): it catches up from the
 * partition's primary, then applies the primary's records in the order they come.
 *
 * <p>Catching up ({@link #follow}, a primary that changed in the map, a stream that lost records): the partition
 * goes CATCHING_UP with the map's owner as its primary, asks it for the records from now on (REPLICA_FOLLOW, which
 * answers the primary's epoch), makes sure it has every cache the primary has (CACHE_NAMES), clears this node's copy
 * of the replicated caches' partition and pulls it from the primary (PARTITION_SCAN), while the records that come meanwhile are buffered; then applies the buffer, is
 * IN_SYNC, and tells the primary (REPLICA_SYNCED), which counts it for FULL_SYNC from then on.
 *
 * <p>A record is refused with STALE_EPOCH if its epoch is lower than the highest this node knows for the partition,
 * and with NOT_FOLLOWING if this node does not follow that primary for the partition. Records are applied through
 * the partition's skip-store view ({@code applyBatch} with the recorded mode, as recovery replays the log): logged,
 * never handed to a cache store (the primary's node does that). Frames of one primary are applied one at a time on
 * that primary's lane, in the order they came. Thread-safe.
 */
final class BackupReplication implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(BackupReplication.class);
    static final int NONE = 0;
    static final int WAITING = 1;
    static final int CATCHING_UP = 2;
    static final int IN_SYNC = 3;
    /** Records buffered per partition while it catches up, at most (then the catch-up starts over). */
    static final long BUFFER_BYTES = 64L << 20;
    private static final long RETRY_MILLIS = 1000;
    /** How long a catch-up waits at most for the primary's answer to one of its requests. */
    static final long MEMBER_REQUEST_SECONDS = 10;

    /** One partition's place (guarded by itself). */
    private static final class Place {
        int state = NONE;
        String primary;
        long epoch;
        long ticket;
        long generation;
        List<ReplicaCodec.Record> buffer;
        long bufferBytes;
        boolean retryScheduled;
    }

    /** What this node knows of a primary's stream. */
    private static final class Incoming {
        long streamId = -1;
        long next;
        final ExecutorService lane;

        Incoming(String primary) {
            lane = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "sluice-replica-from-" + primary);
                t.setDaemon(true);
                return t;
            });
        }
    }

    private final String self;
    private final Supplier<ClusterMap> map;
    private final ServedPartitions served;
    private final LocalPartitions local;
    private final PartitionBuild pull;
    private final MoveThrottle throttle;
    private final ReplicaLinks links;
    private final Function<String, NodeCache<Object, Object>> caches;
    private final Place[] places;
    private final AtomicLongArray knownEpochs;
    private final Map<String, Incoming> incoming = new ConcurrentHashMap<>();
    private final ExecutorService catchUps;
    private final ScheduledExecutorService retries;
    private volatile boolean closed;

    /**
     * @param caches a cache by name, created here first if the cluster's catalogue has it (throws if neither has)
     */
    BackupReplication(String self, int partitions, Supplier<ClusterMap> map, ServedPartitions served,
                      LocalPartitions local, PartitionBuild pull, MoveThrottle throttle, ReplicaLinks links,
                      Function<String, NodeCache<Object, Object>> caches) {
        this.self = self;
        this.map = map;
        this.served = served;
        this.local = local;
        this.pull = pull;
        this.throttle = throttle;
        this.links = links;
        this.caches = caches;
        this.places = new Place[partitions];
        for (int p = 0; p < partitions; p++) {
            places[p] = new Place();
        }
        this.knownEpochs = new AtomicLongArray(partitions);
        this.catchUps = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "sluice-replica-catchup");
            t.setDaemon(true);
            return t;
        });
        this.retries = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sluice-replica-retry");
            t.setDaemon(true);
            return t;
        });
    }

    // ---- Helix's transitions ----

    /** This node backs the partition now (OFFLINE -> SLAVE, MASTER -> SLAVE): it catches up in the background. */
    void follow(int partition) {
        restart(partition, "this node backs it now");
    }

    /**
     * This node stops backing the partition (it leads it now, or goes OFFLINE); a catch-up running stops at its
     * next page.
     *
     * @return the primary this node was in sync with, or null if it was not in sync
     */
    String stopFollowing(int partition) {
        Place place = places[partition];
        synchronized (place) {
            String inSyncWith = place.state == IN_SYNC ? place.primary : null;
            place.state = NONE;
            place.generation++;
            place.buffer = null;
            place.primary = null;
            return inSyncWith;
        }
    }

    /** True while this node backs the partition (its copy must not be dropped as retired). */
    boolean backs(int partition) {
        Place place = places[partition];
        synchronized (place) {
            return place.state != NONE;
        }
    }

    /** The partition's state here (tests, status): NONE, WAITING, CATCHING_UP or IN_SYNC. */
    int state(int partition) {
        Place place = places[partition];
        synchronized (place) {
            return place.state;
        }
    }

    /** Raises the highest epoch this node knows for the partition (it recorded itself as its owner). */
    void knowEpoch(int partition, long epoch) {
        knownEpochs.accumulateAndGet(partition, epoch, Math::max);
    }

    /** A new map: partitions whose primary changed (or that wait for one) catch up from the new one. */
    void mapChanged(ClusterMap m) {
        for (int p = 0; p < Math.min(places.length, m.partitions()); p++) {
            String owner = m.owner(p);
            boolean again;
            Place place = places[p];
            synchronized (place) {
                again = owner != null && !owner.equals(self) && (place.state == WAITING
                        || (place.state != NONE && !owner.equals(place.primary)));
            }
            if (again) {
                restart(p, "its primary is '" + owner + "' now (map version " + m.version() + ")");
            }
        }
    }

    /**
     * Waits until this node's copy of the partition is in sync with the primary the map names, so that Helix's
     * OFFLINE -> SLAVE completes only then ({@link NodeRoles#follow}): Helix drops an older replica of the partition
     * once this one is SLAVE, and a copy still being built must not be the only other one when the primary dies
     * (issue 28: a join whose supplier was killed lost a partition that way). Returns at once when there is nothing to
     * catch up from (the map names no primary, or this node), when this node stops backing the partition, or after
     * {@code timeoutMillis} (the transition then completes as before, and the catch-up goes on in the background).
     *
     * @return true if in sync
     */
    boolean awaitInSync(int partition, long timeoutMillis) throws InterruptedException {
        Place place = places[partition];
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        synchronized (place) {
            while (true) {
                if (place.state == IN_SYNC) {
                    return true;
                }
                String owner = map.get().owner(partition);
                boolean building = place.state == CATCHING_UP
                        || (place.state == WAITING && owner != null && !owner.equals(self));
                long left = deadline - System.nanoTime();
                if (!building || closed) {
                    return false;
                }
                if (left <= 0) {
                    LOG.warn("partition {}: not in sync with '{}' after {} ms; this node backs it from now on while"
                            + " it goes on catching up", partition, owner, timeoutMillis);
                    return false;
                }
                // The map is read outside the place's lock by its writers: look again at least every 100 ms.
                place.wait(Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(left), 100)));
            }
        }
    }

    // ---- catching up ----

    private void restart(int partition, String why) {
        long generation;
        Place place = places[partition];
        synchronized (place) {
            place.generation++;
            place.state = WAITING;
            place.buffer = null;
            place.primary = null;
            generation = place.generation;
        }
        LOG.debug("partition {}: catching up ({})", partition, why);
        if (!closed) {
            catchUps.execute(() -> catchUp(partition, generation));
        }
    }

    private void retryLater(int partition, long generation) {
        Place place = places[partition];
        synchronized (place) {
            if (place.generation != generation || place.retryScheduled || closed) {
                return;
            }
            place.retryScheduled = true;
        }
        retries.schedule(() -> {
            synchronized (place) {
                place.retryScheduled = false;
                if (place.generation != generation || place.state == NONE) {
                    return;
                }
            }
            restart(partition, "retrying");
        }, RETRY_MILLIS, TimeUnit.MILLISECONDS);
    }

    private void catchUp(int partition, long generation) {
        Place place = places[partition];
        String primary = map.get().owner(partition);
        synchronized (place) {
            if (place.generation != generation || place.state == NONE) {
                return;
            }
            if (primary == null || primary.equals(self)) {
                return; // WAITING: a map that names a primary starts it
            }
            place.state = CATCHING_UP;
            place.primary = primary;
            place.buffer = new ArrayList<>();
            place.bufferBytes = 0;
        }
        long start = System.nanoTime();
        long epoch;
        long ticket;
        try {
            long[] answer = call(primary, Op.REPLICA_FOLLOW, out -> {
                Wire.writeString(out, self);
                out.writeInt(partition);
            }, body -> new long[]{Wire.readLong(body, "epoch"), Wire.readLong(body, "ticket")});
            epoch = answer[0];
            ticket = answer[1];
        } catch (RuntimeException e) {
            LOG.info("partition {}: asking '{}' to follow it failed, trying again: {}", partition, primary, e.toString());
            toWaiting(place, generation);
            retryLater(partition, generation);
            return;
        }
        knowEpoch(partition, epoch);
        synchronized (place) {
            if (place.generation != generation) {
                return;
            }
            place.epoch = epoch;
            place.ticket = ticket;
        }
        try {
            // Every cache the primary has is here before the pull (the catalogue's change may not have reached this
            // node yet): a replicated cache missing here would be neither pulled nor complete.
            for (String name : call(primary, Op.CACHE_NAMES, out -> { }, CacheNamesCodec::read)) {
                try {
                    caches.apply(name);
                } catch (CacheNotFoundException gone) {
                    // destroyed meanwhile
                }
            }
        } catch (RuntimeException e) {
            LOG.info("partition {}: reading the caches of '{}' failed, trying again: {}", partition, primary,
                    e.toString());
            toWaiting(place, generation);
            retryLater(partition, generation);
            return;
        }
        ReentrantLock lock = served.moveLock(partition);
        lock.lock();
        PartitionPull.Moved moved;
        try {
            if (isStale(place, generation)) {
                return;
            }
            ClusterMap.Member from = map.get().member(primary);
            if (from == null) {
                throw new IllegalStateException("'" + primary + "' is not in the map");
            }
            // Waits for a permit (maxConcurrentMoves) while it is still wanted: a takeover of the partition, or a
            // restart of its catch-up, makes it stale and ends the wait. Without replicated caches (a partition on
            // its way to this node as its new owner: Helix makes it SLAVE first) there is nothing to build.
            java.util.function.Supplier<PartitionPull.Moved> build =
                    () -> pull.build(partition, from, local::replicated, () -> isStale(place, generation));
            moved = local.caches().stream().anyMatch(local::replicated)
                    ? throttle.build(partition, primary, false, () -> isStale(place, generation), build)
                    : build.get();
            synchronized (place) {
                if (place.generation != generation) {
                    return;
                }
                for (ReplicaCodec.Record r : place.buffer) {
                    if (r.epoch() == epoch) {
                        apply(r);
                    }
                }
                place.buffer = null;
                place.state = IN_SYNC;
                place.notifyAll();
            }
            local.awaitDurable();
        } catch (PartitionPull.Cancelled cancelled) {
            return;
        } catch (RuntimeException e) {
            LOG.warn("partition {}: catching up from '{}' failed, trying again: {}", partition, primary, e.toString());
            toWaiting(place, generation);
            retryLater(partition, generation);
            return;
        } finally {
            lock.unlock();
        }
        try {
            call(primary, Op.REPLICA_SYNCED, out -> {
                Wire.writeString(out, self);
                out.writeInt(partition);
                out.writeLong(epoch);
                out.writeLong(ticket);
            }, body -> null);
            LOG.info("partition {}: in sync with '{}' (epoch {}): {} entries pulled in {} ms", partition, primary,
                    epoch, moved.entries(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        } catch (RuntimeException e) {
            LOG.info("partition {}: '{}' did not take it as in sync, catching up again: {}", partition, primary,
                    e.toString());
            toWaiting(place, generation);
            retryLater(partition, generation);
        }
    }

    /**
     * A request to the primary, answered within {@link #MEMBER_REQUEST_SECONDS} (the catch-up threads are few: one
     * that does not answer must not hold them long).
     */
    private <T> T call(String primary, Op op, java.util.function.Consumer<io.netty.buffer.ByteBuf> body,
                       Function<io.netty.buffer.ByteBuf, T> decoder) {
        PeerConnection c = links.to(primary);
        try {
            return c.send(op, body, decoder).get(MEMBER_REQUEST_SECONDS, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException(op + " to '" + primary + "' had no answer within "
                    + MEMBER_REQUEST_SECONDS + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static boolean isStale(Place place, long generation) {
        synchronized (place) {
            return place.generation != generation;
        }
    }

    private static void toWaiting(Place place, long generation) {
        synchronized (place) {
            if (place.generation == generation && place.state != NONE) {
                place.state = WAITING;
                place.buffer = null;
            }
        }
    }

    // ---- records ----

    /**
     * Applies a REPLICATE frame on its primary's lane, in the order frames come, then calls {@code done} with the
     * partitions refused (on the lane; the caller answers once the writes are durable).
     */
    void replicate(ReplicaCodec.Frame frame, java.util.function.Consumer<List<ReplicaCodec.Refusal>> done) {
        Incoming in = incoming.computeIfAbsent(frame.primary(), Incoming::new);
        in.lane.execute(() -> done.accept(apply(in, frame)));
    }

    private List<ReplicaCodec.Refusal> apply(Incoming in, ReplicaCodec.Frame frame) {
        if (in.streamId != frame.streamId() || in.next != frame.firstSequence()) {
            if (in.streamId != -1) {
                lostRecordsOf(frame.primary());
            }
            in.streamId = frame.streamId();
        }
        in.next = frame.firstSequence() + frame.records().size();
        List<ReplicaCodec.Refusal> refusals = new ArrayList<>(0);
        for (ReplicaCodec.Record r : frame.records()) {
            int p = r.partition();
            if (refused(refusals, p)) {
                continue;
            }
            if (p < 0 || p >= places.length) {
                refusals.add(new ReplicaCodec.Refusal(p, ErrorKind.NOT_FOLLOWING));
                continue;
            }
            if (r.epoch() < knownEpochs.get(p)) {
                refusals.add(new ReplicaCodec.Refusal(p, ErrorKind.STALE_EPOCH));
                continue;
            }
            Place place = places[p];
            boolean overflow = false;
            synchronized (place) {
                if ((place.state != CATCHING_UP && place.state != IN_SYNC) || !frame.primary().equals(place.primary)) {
                    refusals.add(new ReplicaCodec.Refusal(p, ErrorKind.NOT_FOLLOWING));
                } else if (place.state == CATCHING_UP) {
                    place.buffer.add(r);
                    place.bufferBytes += r.entries().length();
                    overflow = place.bufferBytes > BUFFER_BYTES;
                } else if (r.epoch() != place.epoch) {
                    refusals.add(new ReplicaCodec.Refusal(p, ErrorKind.NOT_FOLLOWING));
                    overflow = true; // the primary led it again: follow it afresh
                } else {
                    try {
                        apply(r);
                    } catch (RuntimeException e) {
                        LOG.warn("partition {}: a record of cache '{}' from '{}' could not be applied: {}", p,
                                r.cache(), frame.primary(), e.toString());
                        refusals.add(new ReplicaCodec.Refusal(p, ErrorKind.NOT_FOLLOWING));
                        overflow = true;
                    }
                }
            }
            if (overflow) {
                restart(p, "records from '" + frame.primary() + "' could not be taken");
            }
        }
        return refusals;
    }

    private static boolean refused(List<ReplicaCodec.Refusal> refusals, int partition) {
        for (ReplicaCodec.Refusal r : refusals) {
            if (r.partition() == partition) {
                return true;
            }
        }
        return false;
    }

    /** The primary's stream lost records (it reset): every partition following it catches up again. */
    private void lostRecordsOf(String primary) {
        for (int p = 0; p < places.length; p++) {
            boolean follows;
            Place place = places[p];
            synchronized (place) {
                follows = place.state != NONE && primary.equals(place.primary);
            }
            if (follows) {
                restart(p, "the stream from '" + primary + "' lost records");
            }
        }
    }

    /** Applies one record as recovery replays a logged batch (under the partition's place lock). */
    private void apply(ReplicaCodec.Record r) {
        NodeCache<Object, Object> cache = caches.apply(r.cache());
        if (r.partition() >= cache.partitions() || r.entries().size() == 0) {
            return;
        }
        try {
            cache.store(r.partition()).skippingStore().applyBatch(r.entries(),
                    r.mode() == ReplicaCodec.MODE_UPSERT ? BatchMode.UPSERT : BatchMode.INSERT_IF_ABSENT);
        } catch (BatchApplyException e) {
            if (!r.partial()) {
                throw e;
            }
            // It failed part way on the primary too (and was not acknowledged there).
        }
    }

    @Override
    public void close() {
        closed = true;
        catchUps.shutdownNow();
        retries.shutdownNow();
        for (Incoming in : incoming.values()) {
            in.lane.shutdownNow();
        }
    }
}
