package io.sluice.node.internal.cluster;

import io.sluice.node.internal.JournalTap;
import io.sluice.pagestore.internal.BatchMode;
import io.sluice.protocol.internal.ClusterMap;
import io.sluice.protocol.internal.EntryBatch;
import io.sluice.protocol.internal.ErrorKind;
import io.sluice.protocol.internal.NotFollowingException;
import io.sluice.protocol.internal.NotOwnerException;
import io.sluice.protocol.internal.ReplicaCodec;
import io.sluice.protocol.internal.StaleEpochException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.BiFunction;
import java.util.function.IntConsumer;
import java.util.function.Predicate;

/**
 * The primary's side of replication (issue 27): for each partition this node leads, at its epoch, the members that
 * follow it (asked with REPLICA_FOLLOW; in sync once they said REPLICA_SYNCED), and the node's {@link JournalTap}
 * that copies each write of a replicated cache (backups >= 1) once into the {@link BackupStream} of every follower.
 *
 * <p>{@link #whenReplicated} is the FULL_SYNC barrier: it waits for every follower in sync when it is called to
 * acknowledge the records queued to it so far. A follower that disconnects, falls too far behind (its stream
 * resets), refuses, or leaves the map stops counting and releases its waiters. A backup that answers STALE_EPOCH
 * fences the partition here: it is not led any more, nothing more of it is acknowledged
 * ({@link #mayAcknowledge}) and {@code onFenced} stops serving it, until Helix makes this node its MASTER again
 * ({@link #lead}). Thread-safe.
 */
final class PrimaryReplication implements JournalTap, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PrimaryReplication.class);
    private static final Follower[] NONE = new Follower[0];

    /** One member following a partition, through its stream; counted for FULL_SYNC once in sync. */
    /** {@code since}: the stream's last sequence when it asked to follow (records after it were sent to it). */
    private record Follower(BackupStream stream, long ticket, boolean inSync, long since) {
    }

    /** What REPLICA_FOLLOW answers: the partition's epoch here, and the ticket REPLICA_SYNCED must name. */
    record Following(long epoch, long ticket) {
    }

    private final String self;
    private final int partitions;
    private final Predicate<String> replicated;
    private final BiFunction<String, PrimaryReplication, BackupStream> streamOpener;
    private final IntConsumer onFenced;
    /** Per partition the epoch it is led at here, 0 if not led. */
    private final AtomicLongArray epochs;
    /** Per partition the ZooKeeper session it was led under (ClusterMembership.leaseHeldBy checks the lease's). */
    private final AtomicLongArray ledSessions;
    /** Per partition 1 once a backup answered STALE_EPOCH (until led again). */
    private final AtomicIntegerArray fenced;
    /** Per partition its followers (copy on write under the partition's slot; read without a lock by writers). */
    private final AtomicReferenceArray<Follower[]> followers;
    private final Object[] slots;
    private final Map<String, BackupStream> streams = new ConcurrentHashMap<>();
    private final Map<String, byte[]> cacheNames = new ConcurrentHashMap<>();
    private final java.util.concurrent.atomic.AtomicLong tickets = new java.util.concurrent.atomic.AtomicLong();
    private volatile boolean closed;

    /**
     * @param replicated   whether a cache is replicated (backups >= 1 here)
     * @param streamOpener makes the stream to a member (this is its owner: resets and refusals come back here)
     * @param onFenced     stops serving a partition a backup refused as stale (must not block)
     */
    PrimaryReplication(String self, int partitions, Predicate<String> replicated,
                       BiFunction<String, PrimaryReplication, BackupStream> streamOpener, IntConsumer onFenced) {
        this.self = self;
        this.partitions = partitions;
        this.replicated = replicated;
        this.streamOpener = streamOpener;
        this.onFenced = onFenced;
        this.epochs = new AtomicLongArray(partitions);
        this.ledSessions = new AtomicLongArray(partitions);
        this.fenced = new AtomicIntegerArray(partitions);
        this.followers = new AtomicReferenceArray<>(partitions);
        this.slots = new Object[partitions];
        for (int p = 0; p < partitions; p++) {
            followers.set(p, NONE);
            slots[p] = new Object();
        }
    }

    /** The usual stream: over the member's replication link, bounded per {@code maxQueuedBytes}. */
    static BiFunction<String, PrimaryReplication, BackupStream> streams(String self, ReplicaLinks links,
                                                                       long maxQueuedBytes) {
        return (member, owner) -> new BackupStream(self, member, maxQueuedBytes, BackupStream.over(self, links, member),
                owner::streamReset, owner::refused);
    }

    // ---- Helix's transitions ----

    /**
     * This node leads the partition now, at this epoch, not fenced. Followers it had (it leads the partition again,
     * after its session came back) stay but count no more: the next record, at the new epoch, makes each follow
     * afresh (it refuses it and catches up again), so none stays sure it is in sync while it gets nothing.
     */
    void lead(int partition, long epoch, long session) {
        synchronized (slots[partition]) {
            Follower[] f = followers.get(partition);
            Follower[] next = new Follower[f.length];
            for (int i = 0; i < f.length; i++) {
                next[i] = new Follower(f[i].stream(), f[i].ticket(), false, f[i].since());
            }
            followers.set(partition, next);
            fenced.set(partition, 0);
            epochs.set(partition, epoch);
            ledSessions.set(partition, session);
        }
    }

    /** This node does not lead the partition any more: its followers are let go. */
    void stopLeading(int partition) {
        synchronized (slots[partition]) {
            epochs.set(partition, 0);
            followers.set(partition, NONE);
        }
    }

    /** The epoch this node leads the partition at, 0 if it does not. */
    long epoch(int partition) {
        return epochs.get(partition);
    }

    // ---- requests of the backups ----

    /**
     * REPLICA_FOLLOW: the member wants the partition's records from now on (it catches up meanwhile).
     *
     * @return the epoch this node leads the partition at, and the ticket of this follow (a member that asks again
     *         gets a new one: only the last counts)
     * @throws NotOwnerException if this node does not lead the partition now
     */
    Following follow(String member, int partition) {
        checkRange(partition);
        if (closed) {
            throw new NotOwnerException("node '" + self + "' left the cluster");
        }
        BackupStream stream = streams.computeIfAbsent(member, m -> streamOpener.apply(m, this));
        synchronized (slots[partition]) {
            long epoch = epochs.get(partition);
            if (epoch == 0) {
                throw new NotOwnerException("node '" + self + "' does not lead partition " + partition);
            }
            long ticket = tickets.incrementAndGet();
            followers.set(partition, with(followers.get(partition), new Follower(stream, ticket, false,
                    stream.lastQueued())));
            return new Following(epoch, ticket);
        }
    }

    /**
     * REPLICA_SYNCED: the member caught up at this epoch; it counts for FULL_SYNC from now on.
     *
     * @throws StaleEpochException   if this node leads the partition at another epoch
     * @throws NotOwnerException     if it does not lead it
     * @throws NotFollowingException if the member is not following it (it lost its place: it asks again)
     */
    void synced(String member, int partition, long epoch, long ticket) {
        checkRange(partition);
        synchronized (slots[partition]) {
            long now = epochs.get(partition);
            if (now == 0) {
                throw new NotOwnerException("node '" + self + "' does not lead partition " + partition);
            }
            if (now != epoch) {
                throw new StaleEpochException("partition " + partition + " is led by '" + self + "' at epoch " + now
                        + ", not " + epoch);
            }
            Follower[] f = followers.get(partition);
            for (int i = 0; i < f.length; i++) {
                if (f[i].stream().member().equals(member) && f[i].ticket() == ticket) {
                    Follower[] next = f.clone();
                    next[i] = new Follower(f[i].stream(), ticket, true, f[i].since());
                    followers.set(partition, next);
                    LOG.info("partition {}: backup '{}' is in sync (epoch {})", partition, member, epoch);
                    return;
                }
            }
        }
        throw new NotFollowingException("member '" + member + "' does not follow partition " + partition + " on '"
                + self + "'");
    }

    // ---- the barrier ----

    /**
     * Runs {@code done} once every follower in sync now acknowledged the records queued to it so far (at once if
     * there is none). A follower that stops counting meanwhile releases it.
     */
    void whenReplicated(int partition, Runnable done) {
        Follower[] f = followers.get(partition);
        int inSync = 0;
        for (Follower follower : f) {
            if (follower.inSync()) {
                inSync++;
            }
        }
        if (inSync == 0) {
            done.run();
            return;
        }
        AtomicInteger remaining = new AtomicInteger(inSync);
        for (Follower follower : f) {
            if (follower.inSync()) {
                follower.stream().whenAcknowledged(() -> {
                    if (remaining.decrementAndGet() == 0) {
                        done.run();
                    }
                });
            }
        }
    }

    /** {@link #whenReplicated}, waited for at most the bound. @return true if it completed */
    boolean awaitReplicated(int partition, long bound, TimeUnit unit) throws InterruptedException {
        CountDownLatch latch = new CountDownLatch(1);
        whenReplicated(partition, latch::countDown);
        return latch.await(bound, unit);
    }

    /** False once a backup refused this node's records of the partition as stale (until led again). */
    boolean mayAcknowledge(int partition) {
        return partition < 0 || partition >= partitions || fenced.get(partition) == 0;
    }

    /** The ZooKeeper session the partition was last led under here (0 if never). */
    long ledSession(int partition) {
        return partition < 0 || partition >= partitions ? 0 : ledSessions.get(partition);
    }

    /** Members in sync for the partition (status, tests). */
    List<String> inSync(int partition) {
        return java.util.Arrays.stream(followers.get(partition)).filter(Follower::inSync)
                .map(f -> f.stream().member()).toList();
    }

    /** Resets of the streams to the members (status). */
    long streamResets() {
        long n = 0;
        for (BackupStream s : streams.values()) {
            n += s.resets();
        }
        return n;
    }

    // ---- the tap (under the written partition's lock) ----

    @Override
    public void batch(String cache, int partition, EntryBatch batch, BatchMode mode, boolean partial,
                      boolean skipStore) {
        if (partition >= partitions) {
            return;
        }
        Follower[] f = followers.get(partition);
        if (f.length == 0 || !replicated.test(cache)) {
            return;
        }
        long epoch = epochs.get(partition);
        if (epoch == 0) {
            return;
        }
        byte[] record = ReplicaCodec.record(partition, epoch, utf8(cache), modeCode(mode),
                (partial ? ReplicaCodec.FLAG_PARTIAL : 0) | (skipStore ? ReplicaCodec.FLAG_SKIP_STORE : 0),
                batch.size(), batch.data(), batch.base(), batch.length());
        for (Follower follower : f) {
            follower.stream().add(record);
        }
    }

    @Override
    public void entry(String cache, int partition, byte[] key, int keyOffset, int keyLength, byte[] value,
                      int valueOffset, int valueLength, BatchMode mode, boolean skipStore) {
        if (partition >= partitions) {
            return;
        }
        Follower[] f = followers.get(partition);
        if (f.length == 0 || !replicated.test(cache)) {
            return;
        }
        long epoch = epochs.get(partition);
        if (epoch == 0) {
            return;
        }
        // One entry as a one-entry batch (EntryBatch layout: key length, value length or -1, key, value).
        byte[] entry = new byte[EntryBatch.ENTRY_HEADER + keyLength + (value == null ? 0 : valueLength)];
        ByteBuffer b = ByteBuffer.wrap(entry).putInt(keyLength).putInt(value == null ? EntryBatch.REMOVAL : valueLength)
                .put(key, keyOffset, keyLength);
        if (value != null) {
            b.put(value, valueOffset, valueLength);
        }
        byte[] record = ReplicaCodec.record(partition, epoch, utf8(cache), modeCode(mode),
                skipStore ? ReplicaCodec.FLAG_SKIP_STORE : 0, 1, entry, 0, entry.length);
        for (Follower follower : f) {
            follower.stream().add(record);
        }
    }

    // ---- what the streams report ----

    /** A stream reset: its member stops counting for every partition (it catches up again when it learns it). */
    void streamReset(BackupStream stream) {
        try {
            markOutOfSync(stream);
        } finally {
            // A FULL_SYNC write that found it in sync between the reset and the line above waits for it no longer.
            stream.releaseWaiters();
        }
    }

    private void markOutOfSync(BackupStream stream) {
        for (int p = 0; p < partitions; p++) {
            synchronized (slots[p]) {
                Follower[] f = followers.get(p);
                for (int i = 0; i < f.length; i++) {
                    if (f[i].stream() == stream && f[i].inSync()) {
                        Follower[] next = f.clone();
                        next[i] = new Follower(stream, f[i].ticket(), false, f[i].since());
                        followers.set(p, next);
                    }
                }
            }
        }
    }

    /** A backup refused some partitions' records. */
    void refused(BackupStream stream, List<ReplicaCodec.Refusal> refusals, long lastSequence) {
        for (ReplicaCodec.Refusal r : refusals) {
            int p = r.partition();
            if (p < 0 || p >= partitions) {
                continue;
            }
            if (r.kind() == ErrorKind.STALE_EPOCH) {
                fence(p);
            } else {
                unfollowed(stream.member(), p, lastSequence);
            }
        }
    }

    /**
     * A backup refused records of the partition up to that sequence: it drops out of its followers (it asks again
     * when it can) - unless it asked to follow after those records were queued (its refusal is of an earlier time).
     */
    void unfollowed(String member, int partition, long lastSequence) {
        synchronized (slots[partition]) {
            for (Follower f : followers.get(partition)) {
                if (f.stream().member().equals(member) && f.since() >= lastSequence) {
                    return;
                }
            }
            followers.set(partition, without(followers.get(partition), member));
        }
    }

    /** Another node leads the partition at a higher epoch: nothing more of it is acknowledged or served here. */
    void fence(int partition) {
        boolean first;
        synchronized (slots[partition]) {
            first = fenced.getAndSet(partition, 1) == 0;
            epochs.set(partition, 0);
            followers.set(partition, NONE);
        }
        if (first) {
            LOG.warn("partition {}: a backup knows a newer primary (stale epoch): node '{}' stops serving it", partition,
                    self);
        }
        onFenced.accept(partition);
    }

    /** Members the map no longer names: their streams close (waiters released) and they follow nothing here. */
    void retainMembers(ClusterMap map) {
        for (String member : streams.keySet()) {
            if (map.member(member) == null) {
                BackupStream s = streams.remove(member);
                if (s != null) {
                    for (int p = 0; p < partitions; p++) {
                        synchronized (slots[p]) {
                            followers.set(p, without(followers.get(p), member));
                        }
                    }
                    s.close();
                }
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        for (int p = 0; p < partitions; p++) {
            synchronized (slots[p]) {
                followers.set(p, NONE);
                epochs.set(p, 0);
            }
        }
        for (String member : streams.keySet()) {
            BackupStream s = streams.remove(member);
            if (s != null) {
                s.close();
            }
        }
    }

    private byte[] utf8(String cache) {
        return cacheNames.computeIfAbsent(cache, ReplicaCodec::cacheName);
    }

    private static int modeCode(BatchMode mode) {
        return mode == BatchMode.UPSERT ? ReplicaCodec.MODE_UPSERT : ReplicaCodec.MODE_INSERT_IF_ABSENT;
    }

    private static Follower[] with(Follower[] f, Follower added) {
        Follower[] next = without(f, added.stream().member());
        Follower[] grown = java.util.Arrays.copyOf(next, next.length + 1);
        grown[next.length] = added;
        return grown;
    }

    private static Follower[] without(Follower[] f, String member) {
        int n = 0;
        for (Follower x : f) {
            if (!x.stream().member().equals(member)) {
                n++;
            }
        }
        if (n == f.length) {
            return f;
        }
        Follower[] next = new Follower[n];
        int i = 0;
        for (Follower x : f) {
            if (!x.stream().member().equals(member)) {
                next[i++] = x;
            }
        }
        return next;
    }

    private void checkRange(int partition) {
        if (partition < 0 || partition >= partitions) {
            throw new IllegalArgumentException("partition " + partition + " is out of range: the cluster has "
                    + partitions + " partitions");
        }
    }
}
