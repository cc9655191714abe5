package io.sluice.node.internal.cluster;

import io.sluice.CacheConfig;
import io.sluice.cluster.internal.ClusterMembership;
import io.sluice.cluster.internal.ClusterSettings;
import io.sluice.cluster.internal.HelixMembership;
import io.sluice.cluster.internal.PartitionRoles;
import io.sluice.node.ClusterConfig;
import io.sluice.node.internal.NodeCache;
import io.sluice.node.internal.PartitionAdoption;
import io.sluice.node.internal.NodeEngine;
import io.sluice.protocol.internal.ClusterMap;
import io.sluice.protocol.internal.NotOwnerException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import io.sluice.protocol.internal.ReplicaCodec;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A node's membership of its cluster: made before the node's server starts (it serves nothing until it has joined),
 * joined once the server's port is known. On joining it applies the cluster's catalogue of caches and types to the
 * node, then serves the partitions Helix gives it ({@link NodeRoles}: taking each over from its last owner,
 * {@link PartitionTakeover}; giving it up once the writes in flight are done, {@link ServedPartitions}), drops the
 * data of partitions retired from it ({@link RetiredPartitions}) and follows the catalogue's changes. The server
 * sees it as a {@link ClusterView}, and creates and destroys caches through it ({@link #createCache},
 * {@link #destroyCache}). Thread-safe.
 */
public final class ClusterNode implements ClusterView, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ClusterNode.class);
    /** How long giving a partition up waits at most for the writes in flight on it. */
    static final Duration DRAIN_BOUND = Duration.ofSeconds(30);
    /** Records queued to one backup and not yet sent, at most: past it the backup's stream resets. */
    static final long REPLICA_QUEUE_BYTES = 64L << 20;
    /** The map before joining: no members, no partitions, nothing served. */
    private static final ClusterMap NOT_JOINED = new ClusterMap(0, List.of(), new int[0]);

    /** How a node joins a cluster: Helix's membership in a running node; tests may bring their own. */
    @FunctionalInterface
    public interface MembershipJoin {
        /** @throws IllegalStateException naming the ZooKeeper address or cluster when it cannot join */
        ClusterMembership join(ClusterSettings settings, PartitionRoles roles);
    }

    private final NodeEngine node;
    private final MembershipJoin membershipJoin;
    private final LocalPartitions local;
    /** The background thread: catalogue changes, type merges, dropping retired data (never Helix's threads). */
    private final ExecutorService background;
    private final CompletableFuture<ClusterParts> joined = new CompletableFuture<>();
    private volatile PeerAccess peerAccess = PeerAccess.PLAIN;
    /** How partition files are adopted here, if not the node's own (tests). */
    private volatile PartitionAdoption adoption;
    private volatile int fileChunkSize = PartitionFileWire.DEFAULT_CHUNK;
    private volatile long replicaQueueBytes = REPLICA_QUEUE_BYTES;
    /** Null until joined. */
    private volatile ClusterParts parts;
    private volatile String nodeId;
    private volatile boolean closed;

    /** A node that joins with Helix ({@code io.sluice.cluster.internal}). */
    public ClusterNode(NodeEngine node) {
        this(node, HelixMembership::join);
    }

    public ClusterNode(NodeEngine node, MembershipJoin membershipJoin) {
        this.node = Objects.requireNonNull(node, "node");
        this.membershipJoin = Objects.requireNonNull(membershipJoin, "membershipJoin");
        this.local = new LocalPartitions(node);
        this.background = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "sluice-cluster-background");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * How this node connects to other members to pull the partitions it takes over (the cluster's token and TLS, as
     * any client presents them). Set before {@link #join}; plain TCP without a token by default.
     */
    public ClusterNode peerAccess(PeerAccess access) {
        this.peerAccess = Objects.requireNonNull(access, "access");
        return this;
    }

    /** How this node adopts partition files it receives, in place of the node's own (tests); before {@link #join}. */
    ClusterNode partitionAdoption(PartitionAdoption adoption) {
        this.adoption = adoption;
        return this;
    }

    /** The chunk size this node asks suppliers for (tests make it small); set before {@link #join}. */
    ClusterNode fileChunkSize(int bytes) {
        this.fileChunkSize = bytes;
        return this;
    }

    /** The bound of each backup's unsent records (tests make it small); set before {@link #join}. */
    ClusterNode replicaQueueBytes(long bytes) {
        this.replicaQueueBytes = bytes;
        return this;
    }

    /**
     * Joins the cluster: connects to ZooKeeper, applies the cluster's catalogue to the node (its caches and binary
     * types), then takes the partitions Helix gives it. Once only.
     *
     * @throws IllegalStateException naming the ZooKeeper address or cluster when it cannot join, or if it joined or
     *                               closed already
     */
    public void join(ClusterSettings settings) {
        Objects.requireNonNull(settings, "settings");
        synchronized (this) {
            if (closed || nodeId != null) {
                throw new IllegalStateException("node '" + settings.nodeId() + "' " + (closed ? "was closed"
                        : "has joined already"));
            }
            nodeId = settings.nodeId();
        }
        ClusterMembership membership;
        try {
            membership = membershipJoin.join(settings, new NodeRoles(settings.nodeId(), joined));
        } catch (RuntimeException | Error e) {
            joined.completeExceptionally(e);
            throw e;
        }
        try {
            ClusterParts made = build(membership);
            made.caches().join();
            made.types().join();
            parts = made;
            joined.complete(made);
            made.retired().sweepSoon();
            LOG.info("node '{}' joined cluster '{}' at {} (map version {}, {} members, {} partitions, caches {})",
                    settings.nodeId(), settings.clusterName(), settings.zookeeper(), membership.map().version(),
                    membership.map().nodes().size(), membership.map().partitions(), node.cacheNames());
        } catch (RuntimeException | Error e) {
            joined.completeExceptionally(e);
            try {
                membership.close();
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    private ClusterParts build(ClusterMembership membership) {
        ClusterMap first = Objects.requireNonNull(membership.map(), "the membership's map");
        if (first.partitions() == 0) {
            throw new IllegalStateException("the map of the cluster node '" + membership.nodeId() + "' joined has no"
                    + " partitions (was it made with create-cluster?)");
        }
        String self = membership.nodeId();
        ServedPartitions served = new ServedPartitions(self, first.partitions(), membership::map, DRAIN_BOUND);
        MoveStats moves = new MoveStats(node.metrics().registry(), served::servedCount);
        PeerConnections peers = new PeerConnections(self, peerAccess);
        CatalogueSync caches = new CatalogueSync(node, membership.catalogue(), first.partitions());
        TypesSync types = new TypesSync(node.binaryContext(), membership.catalogue(), background);
        PartitionPull pull = new PartitionPull(local, peers);
        ClusterConfig config = node.config().cluster().orElse(null);
        ClusterConfig.MoveMethod method = config == null ? ClusterConfig.MoveMethod.FILES : config.moveMethod();
        long moveRate = config == null ? ClusterConfig.DEFAULT_MOVE_BYTES_PER_SECOND : config.moveBytesPerSecond();
        PartitionBuild build = new PartitionBuild(self, method, pull,
                new PartitionFileFetch(self, peerAccess, moves, fileChunkSize, node.config().persistence().enabled()),
                adoption != null ? adoption : node.partitionAdoption(), local, membership::map);
        ReplicaLinks links = new ReplicaLinks(self, peerAccess, membership::map);
        PrimaryReplication primary = new PrimaryReplication(self, first.partitions(), local::replicated,
                PrimaryReplication.streams(self, links, replicaQueueBytes), served::refuse);
        BackupReplication backup = new BackupReplication(self, first.partitions(), membership::map, served, local,
                build, links, caches::cache);
        PartitionTakeover takeover = new PartitionTakeover(membership, served, local, build, moves, primary, backup);
        PartitionFileSupplier files = new PartitionFileSupplier(node,
                p -> served.serves(p) || backup.state(p) == BackupReplication.IN_SYNC, moves, moveRate);
        RetiredPartitions retired = new RetiredPartitions(membership, served, local, moves, background, backup::backs);
        membership.catalogue().onCachesChange(c -> background.execute(() -> {
            try {
                caches.apply();
            } catch (RuntimeException e) {
                LOG.error("could not apply the cluster's catalogue of caches to node '{}': {}", self, e.toString());
            }
        }));
        membership.catalogue().onTypesChange(t -> background.execute(() -> {
            try {
                types.clusterChanged(t);
            } catch (RuntimeException e) {
                LOG.error("could not import the cluster's binary types into node '{}': {}", self, e.toString());
            }
        }));
        MemberChanges members = new MemberChanges(first);
        membership.onMapChange(map -> {
            members.seen(map);
            peers.retainMembers(map);
            links.retainMembers(map);
            primary.retainMembers(map);
            backup.mapChanged(map);
            retired.sweepSoon();
            types.learnedTypes();
        });
        node.journalTap(primary);
        return new ClusterParts(membership, served, local, moves, peers, caches, types, takeover, retired, links,
                primary, backup, build, files);
    }

    /**
     * What sends this node's partitions as files to members building them (PARTITION_FILE).
     *
     * @throws io.sluice.protocol.internal.MoveRefusedException if the node has not joined (or left)
     */
    public PartitionFileSupplier partitionFiles() {
        ClusterParts p = parts;
        if (p == null || closed) {
            throw new io.sluice.protocol.internal.MoveRefusedException("node '" + (nodeId != null ? nodeId
                    : node.id()) + "' is not a member of its cluster now");
        }
        return p.files();
    }

    /** The parts once joined, or null (for tests in this package). */
    ClusterParts joinedParts() {
        return parts;
    }

    private ClusterParts joined() {
        ClusterParts p = parts;
        if (p == null) {
            throw new IllegalStateException("node '" + (nodeId != null ? nodeId : node.id())
                    + "' has not joined its cluster"
                    + (closed ? " (it left)" : " yet"));
        }
        return p;
    }

    /**
     * Creates a cache in the whole cluster: written to the cluster's catalogue, then created on this node; the
     * other members create it when they see the change. A config with {@link CacheConfig#DEFAULT_PARTITIONS} gets
     * the cluster's partition count.
     *
     * @param ifAbsent true for getOrCreateCache (an existing cache is returned as it is), false for createCache
     * @return the cache on this node
     * @throws IllegalArgumentException if the config asks for a partition count other than the cluster's
     * @throws IllegalStateException    if {@code ifAbsent} is false and the cluster has the cache, or the node has
     *                                  not joined
     */
    public NodeCache<Object, Object> createCache(CacheConfig config, boolean ifAbsent) {
        Objects.requireNonNull(config, "config");
        ClusterParts p = joined();
        if (config.backups() > 0) {
            p.membership().ensureReplicas(1 + config.backups()); // Helix places the backups (SLAVEs)
        }
        return p.caches().create(config, ifAbsent);
    }

    /**
     * The cache of that name on this node, created here first if the cluster's catalogue has it and this node has
     * not applied that change yet (a client may use a cache through another member right after creating it). For
     * the server's requests that name a cache.
     *
     * @throws io.sluice.CacheNotFoundException if neither this node nor the cluster has it
     * @throws IllegalStateException            if the node has not joined
     */
    public NodeCache<Object, Object> cache(String name) {
        Objects.requireNonNull(name, "name");
        return joined().caches().cache(name);
    }

    /**
     * Destroys a cache in the whole cluster: removed from the catalogue, then from this node; the other members
     * destroy it when they see the change.
     *
     * @return true if the cluster or this node had it
     * @throws IllegalStateException if the node has not joined
     */
    public boolean destroyCache(String name) {
        Objects.requireNonNull(name, "name");
        return joined().caches().destroy(name);
    }

    /**
     * The node's binary context may have gained types (the server calls it after importing a client's PUT_TYPES):
     * they are merged into the cluster's catalogue on a background thread. Never blocks; does nothing before joining.
     */
    public void typesImported() {
        ClusterParts p = parts;
        if (p != null) {
            p.types().learnedTypes();
        }
    }

    @Override
    public ClusterMap map() {
        ClusterParts p = parts;
        return p == null ? NOT_JOINED : p.membership().map();
    }

    @Override
    public void checkServes(int partition) {
        servedOrRefuse(partition).checkServes(partition);
    }

    /** Passes as {@link #checkServes}, or if this node is one of the partition's backups in sync (a caught-up copy). */
    @Override
    public void checkServesOrBacks(int partition) {
        ClusterParts p = parts;
        if (p != null && partition >= 0 && partition < p.membership().map().partitions()
                && !p.served().serves(partition) && p.backup().state(partition) == BackupReplication.IN_SYNC) {
            return;
        }
        checkServes(partition);
    }

    @Override
    public void enter(int partition) {
        servedOrRefuse(partition).enter(partition);
    }

    @Override
    public void exit(int partition) {
        ClusterParts p = parts;
        if (p != null) {
            p.served().exit(partition);
        }
    }

    @Override
    public boolean serves(int partition) {
        ClusterParts p = parts;
        return p != null && p.served().serves(partition);
    }

    private ServedPartitions servedOrRefuse(int partition) {
        ClusterParts p = parts;
        if (p == null) {
            throw new NotOwnerException("partition " + partition + " is not served by node '"
                    + (nodeId != null ? nodeId : node.id()) + "': it has not joined its cluster"
                    + (closed ? " (it left)" : " yet"));
        }
        return p.served();
    }

    @Override
    public boolean mayAcknowledge(int partition) {
        ClusterParts p = parts;
        if (p == null) {
            return false;
        }
        // A partition's writes are acknowledged under the lease of the session it was led under: after an expiry
        // the next session's lease (held as soon as Helix reconnects) does not cover leaderships Helix has not
        // given again (a paused primary's queued writes, answered in the moment after it resumes).
        boolean lease = partition < 0 || partition >= p.served().partitions() ? p.membership().leaseValid()
                : p.membership().leaseHeldBy(p.primary().ledSession(partition));
        return lease && p.primary().mayAcknowledge(partition);
    }

    @Override
    public void whenReplicated(int partition, Runnable done) {
        ClusterParts p = parts;
        if (p == null || partition < 0 || partition >= p.served().partitions()) {
            done.run();
        } else {
            p.primary().whenReplicated(partition, done);
        }
    }

    @Override
    public void replicate(ReplicaCodec.Frame frame, Consumer<List<ReplicaCodec.Refusal>> done) {
        joined().backup().replicate(frame, done);
    }

    @Override
    public long[] followedBy(String member, int partition) {
        PrimaryReplication.Following f = servedOrRefuse(partition) != null ? joined().primary().follow(member,
                partition) : null;
        return new long[]{f.epoch(), f.ticket()};
    }

    @Override
    public void syncedBy(String member, int partition, long epoch, long ticket) {
        servedOrRefuse(partition);
        joined().primary().synced(member, partition, epoch, ticket);
    }

    @Override
    public String statusJson() {
        ClusterParts p = parts;
        String id = nodeId != null ? nodeId : node.id();
        return p == null ? ClusterStatus.json(id, false, NOT_JOINED, null, local, null)
                : ClusterStatus.json(id, !closed, p.membership().map(), p.served(), local, p.moves(),
                p.primary(), p.backup());
    }

    /** Leaves the cluster: stops serving, ends the membership (its partitions move or wait), stops its threads. Idempotent. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        joined.completeExceptionally(new IllegalStateException("node '" + nodeId + "' left its cluster"));
        ClusterParts p = parts;
        if (p != null) {
            p.served().stopAll();
            node.journalTap(io.sluice.node.internal.JournalTap.NONE);
            try {
                p.membership().close();
            } finally {
                p.primary().close();
                p.backup().close();
                p.links().close();
                background.shutdownNow();
                awaitBackground();
                p.peers().close();
                p.files().close();
                p.moves().close();
            }
            LOG.info("node '{}' left its cluster", nodeId);
        } else {
            background.shutdownNow();
        }
    }

    private void awaitBackground() {
        try {
            if (!background.awaitTermination(10, TimeUnit.SECONDS)) {
                LOG.warn("node '{}': the cluster's background thread did not end within 10 s", nodeId);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
