package io.sluice.client.internal;

import io.sluice.NodeUnreachableException;
import io.sluice.affinity.internal.RendezvousAffinity;
import io.sluice.protocol.internal.ClusterMap;
import io.sluice.protocol.internal.Frames;
import io.sluice.protocol.internal.Op;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Which node owns each partition, as this client knows it. At connect the client asks each reachable address for
 * CLUSTER_MAP: if every node answers "standalone" (or predates the op) the client routes as it always has,
 * rendezvous over the reachable nodes' ids; if any answers a map, the client routes by the newest map, reaching its
 * members at the addresses it advertises. The map is refreshed when a node answers NOT_OWNER or cannot be reached
 * ({@link #refresh}); a map replaces the current one only if its version is newer. Thread-safe.
 *
 * <p>Retries wait on the routing's own daemon threads (never on a connection's event loop); they end when idle.
 */
final class Routing implements AutoCloseable {

    /**
     * The owner the streamer's table names for a partition no node serves now: its batches queue under this name,
     * and the transport holds them until an owner appears (or the request timeout passes).
     */
    static final String UNOWNED = "\u0000no owner";
    /**
     * How often the map is asked for while a call waits for a newer one: a retry waiting out its backoff goes on
     * within about this long of a failover's map change instead of up to {@link ClientSettings#MAX_BACKOFF} after.
     */
    static final long MAP_POLL_MILLIS = 200;

    private final Nodes nodes;
    private final ClientSettings config;
    private final ScheduledThreadPoolExecutor scheduler;
    /** Null while standalone; once a map, always a map (newer ones replace it). */
    private volatile ClusterMap map;
    /** The streamer's per-partition owner ids of {@link #map}, made once per map. */
    private volatile String[] table;
    /** The owner table while the map has no partitions yet (its node has not joined): all {@link #UNOWNED}. */
    private volatile String[] unowned;
    /** The refresh in progress, which later askers join; null when none is. */
    private CompletableFuture<Void> refreshing;
    /** Tasks to run once a newer map is taken ({@link #onNewerMap}); each runs at most once. */
    private final Set<Runnable> mapWaiters = ConcurrentHashMap.newKeySet();
    /** True while the map is asked for every {@link #MAP_POLL_MILLIS}; guarded by this. */
    private boolean polling;

    Routing(Nodes nodes, ClientSettings config) {
        this.nodes = nodes;
        this.config = config;
        this.scheduler = new ScheduledThreadPoolExecutor(2, r -> {
            Thread t = new Thread(r, "sluice-client-routing");
            t.setDaemon(true);
            return t;
        });
        scheduler.setKeepAliveTime(1, TimeUnit.SECONDS);
        scheduler.allowCoreThreadTimeOut(true);
        scheduler.setRemoveOnCancelPolicy(true);
        for (String id : nodes.ids()) {
            ClusterMap answer = askMap(id);
            if (answer != null) {
                adopt(answer);
            }
        }
    }

    /** The map asked of a node at connect; null if it is standalone or predates CLUSTER_MAP. */
    private ClusterMap askMap(String nodeId) {
        try {
            return nodes.await(nodes.call(nodeId, false, c -> Frames.request(c.alloc(), Op.CLUSTER_MAP, out -> { }),
                    ClusterMap::read, null));
        } catch (IllegalArgumentException unknownOp) {
            return null; // a node older than op 17 is standalone
        } catch (NodeUnreachableException goneSinceConnect) {
            return null; // routed to as before; its requests fail as they would have
        }
    }

    /** True when the client routes by a cluster's map. */
    boolean clustered() {
        return map != null;
    }

    /** The current map; null while standalone. */
    ClusterMap map() {
        return map;
    }

    long version() {
        ClusterMap m = map;
        return m == null ? -1 : m.version();
    }

    /**
     * The owner of a partition now: standalone, rendezvous over the reachable nodes; in a cluster, the map's owner,
     * or null while no node serves it.
     *
     * @param partitions the cache's partition count, or -1 if the caller does not know it (a map has the cluster's)
     * @throws IllegalStateException if the cache's partition count is not the cluster's
     */
    String owner(int partition, int partitions) {
        ClusterMap m = map;
        if (m == null) {
            return RendezvousAffinity.owner(partition, nodes.ids());
        }
        if (m.partitions() == 0) {
            return null; // the map of a node that has not joined yet: no owner anywhere so far
        }
        checkPartitions(m, partitions);
        return m.owner(partition);
    }

    /**
     * A node to read the partition from when its backups may serve reads: in a cluster, one of its copies (owner
     * first, then its backups in the map's order), the {@code pick}-th modulo their number, so that scans spread over
     * the copies; standalone, or while no copy is known, as {@link #owner}.
     *
     * @throws IllegalStateException if the cache's partition count is not the cluster's
     */
    String reader(int partition, int partitions, int pick) {
        ClusterMap m = map;
        if (m == null || m.partitions() == 0) {
            return owner(partition, partitions);
        }
        checkPartitions(m, partitions);
        int owner = m.ownerIndex(partition);
        int backups = m.backupCount(partition);
        int copies = backups + (owner == ClusterMap.NO_OWNER ? 0 : 1);
        if (copies == 0) {
            return null;
        }
        int i = Math.floorMod(pick, copies);
        if (owner != ClusterMap.NO_OWNER) {
            if (i == 0) {
                return m.owner(partition);
            }
            i--;
        }
        return m.nodes().get(m.backupIndex(partition, i)).id();
    }

    /**
     * The streamer's owner table for the current map (an owner id per partition, {@link #UNOWNED} where none serves
     * it): the same array until the map changes. Null while standalone.
     */
    String[] ownerTable(int partitions) {
        ClusterMap m = map;
        if (m == null) {
            return null;
        }
        if (m.partitions() == 0) {
            String[] none = unowned; // not joined yet: every batch waits for an owner
            if (none == null || none.length != partitions) {
                none = new String[partitions];
                java.util.Arrays.fill(none, UNOWNED);
                unowned = none;
            }
            return none;
        }
        checkPartitions(m, partitions);
        return table;
    }

    private static void checkPartitions(ClusterMap m, int partitions) {
        if (partitions >= 0 && m.partitions() != partitions) {
            throw new IllegalStateException("the cache has " + partitions + " partitions but the cluster's map has "
                    + m.partitions() + ": every cache of a cluster has the cluster's partition count");
        }
    }

    /** The nodes to ask when any one will do: the configured ones that answered at connect, then the map's others. */
    List<String> anyNodes() {
        Set<String> ids = new LinkedHashSet<>(nodes.ids());
        ClusterMap m = map;
        if (m != null) {
            for (ClusterMap.Member member : m.nodes()) {
                ids.add(member.id());
            }
        }
        return new ArrayList<>(ids);
    }

    /**
     * Runs a request that any node answers alike (the catalogue is cluster-wide): on the first node of
     * {@link #anyNodes()} that can be reached.
     *
     * @throws NodeUnreachableException if none can
     */
    <T> T callAny(java.util.function.Function<String, CompletableFuture<T>> call) {
        NodeUnreachableException unreachable = null;
        for (String id : anyNodes()) {
            try {
                return nodes.await(call.apply(id));
            } catch (NodeUnreachableException e) {
                if (unreachable == null) {
                    unreachable = e;
                } else {
                    unreachable.addSuppressed(e);
                }
            }
        }
        throw unreachable != null ? unreachable : new NodeUnreachableException("no node of the cluster is known");
    }

    /**
     * Asks for the map again: first the node that answered NOT_OWNER (if any), then every other known node until
     * one answers a newer map (nodes see a change one after the other; a map is taken only if it is newer).
     * Concurrent askers share one refresh. Never fails.
     *
     * @param first the node to ask first, or null
     */
    CompletableFuture<Void> refresh(String first) {
        CompletableFuture<Void> done;
        synchronized (this) {
            if (refreshing != null) {
                return refreshing;
            }
            done = new CompletableFuture<>();
            refreshing = done;
        }
        Runnable ask = () -> {
            try {
                long before = version();
                List<String> order = anyNodes();
                if (first != null) {
                    order.remove(first);
                    order.add(0, first);
                }
                for (String id : order) {
                    try {
                        ClusterMap answer = nodes.callOnce(id, c -> Frames.request(c.alloc(), Op.CLUSTER_MAP,
                                out -> { }), ClusterMap::read).get(config.requestTimeout().toMillis(),
                                TimeUnit.MILLISECONDS);
                        if (answer != null) {
                            adopt(answer);
                        }
                        if (version() > before) {
                            break; // a node that has not seen the change yet answers an older map: ask the next
                        }
                    } catch (Exception unreachable) {
                        // ask the next node
                    }
                }
            } finally {
                synchronized (this) {
                    refreshing = null;
                }
                done.complete(null);
            }
        };
        try {
            scheduler.execute(ask);
        } catch (java.util.concurrent.RejectedExecutionException closed) {
            synchronized (this) {
                refreshing = null;
            }
            done.complete(null);
        }
        return done;
    }

    /** Takes a map if it is newer than the current one, making its members known. */
    private synchronized void adopt(ClusterMap candidate) {
        ClusterMap current = map;
        if (current != null && candidate.version() <= current.version()) {
            return;
        }
        for (ClusterMap.Member m : candidate.nodes()) {
            nodes.addMember(m.id(), new Address(m.host(), m.port()));
        }
        String[] owners = new String[candidate.partitions()];
        for (int p = 0; p < owners.length; p++) {
            String owner = candidate.owner(p);
            owners[p] = owner == null ? UNOWNED : owner;
        }
        table = owners;
        map = candidate;
        for (Runnable waiter : mapWaiters) {
            if (mapWaiters.remove(waiter)) {
                schedule(waiter, 0);
            }
        }
    }

    /**
     * Runs the task on the routing's threads once a map newer than {@code version} is taken (at once if one is
     * already), asking the nodes for the map every {@link #MAP_POLL_MILLIS} while any task waits: nodes do not push
     * map changes, and a retry must not sleep through one. The task runs at most once; {@link #stopWaiting} drops it.
     */
    void onNewerMap(long version, Runnable task) {
        mapWaiters.add(task);
        if (version() > version) {
            if (mapWaiters.remove(task)) {
                schedule(task, 0);
            }
            return;
        }
        synchronized (this) {
            if (polling || scheduler.isShutdown()) {
                return;
            }
            polling = true;
        }
        schedule(this::pollMap, MAP_POLL_MILLIS);
    }

    /** Drops a task {@link #onNewerMap} holds (its call went on without a newer map). */
    void stopWaiting(Runnable task) {
        mapWaiters.remove(task);
    }

    private void pollMap() {
        synchronized (this) {
            if (mapWaiters.isEmpty() || scheduler.isShutdown()) {
                polling = false; // an onNewerMap after this starts polling again
                return;
            }
        }
        refresh(null).whenComplete((done, error) -> schedule(this::pollMap, MAP_POLL_MILLIS));
    }

    /** The wait before retry number {@code attempt} (1 = the first retry): exponential with jitter, capped. */
    long backoffMillis(int attempt) {
        long base = config.retryInitialBackoff().toMillis();
        long wait = Math.min(ClientSettings.MAX_BACKOFF.toMillis(), base << Math.min(20, Math.max(0, attempt - 1)));
        return Math.max(1, (long) (wait * (0.5 + ThreadLocalRandom.current().nextDouble())));
    }

    /** Runs a task on the routing's threads after the delay. */
    void schedule(Runnable task, long delayMillis) {
        try {
            scheduler.schedule(task, delayMillis, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException closed) {
            task.run(); // the client closed: the task fails on the closed client instead of hanging
        }
    }

    long requestTimeoutNanos() {
        return config.requestTimeout().toNanos();
    }

    /** The error when no node served partitions within the request timeout. */
    NodeUnreachableException noOwner(String what, List<Integer> partitions, int attempts, Throwable last) {
        NodeUnreachableException e = new NodeUnreachableException(what + ": no node served partition"
                + (partitions.size() == 1 ? " " + partitions.get(0) : "s " + shortList(partitions))
                + " within " + config.requestTimeout() + " (ClientConfig.requestTimeout; " + attempts
                + " attempt(s), map version " + version() + ")" + (last == null ? "" : "; last: " + last.getMessage()));
        if (last != null) {
            e.addSuppressed(last);
        }
        return e;
    }

    private static String shortList(List<Integer> partitions) {
        return partitions.size() <= 10 ? partitions.toString()
                : partitions.subList(0, 10) + " and " + (partitions.size() - 10) + " more";
    }

    /** Lets waiting retries run (they fail on the closed client, so no future is left pending); takes no new ones. */
    @Override
    public void close() {
        scheduler.shutdown();
    }
}
