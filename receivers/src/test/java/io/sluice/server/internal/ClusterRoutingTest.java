package io.sluice.server.internal;

import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.DataStreamer;
import io.sluice.NodeUnreachableException;
import io.sluice.Processors;
import io.sluice.Sluice;
import io.sluice.StreamerException;
import io.sluice.affinity.internal.Partitioner;
import io.sluice.binary.BinaryObject;
import io.sluice.binary.internal.BinaryContext;
import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.client.ClientConfig;
import io.sluice.client.SluiceClient;
import io.sluice.node.NodeConfig;
import io.sluice.node.internal.NodeEngine;
import io.sluice.protocol.internal.ClusterMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Routing by a cluster's map, server and client together: real nodes and servers on 127.0.0.1, each node's
 * {@link io.sluice.node.internal.cluster.ClusterView} serving a map the test sets and switches
 * ({@link FixedMapCluster}). Nothing moves data between nodes here: a node keeps what it applied, so where an entry
 * landed says where the client sent it.
 */
@Timeout(120)
class ClusterRoutingTest {

    private static final int PARTITIONS = 32;
    private static final String CACHE = "orders";

    private final FixedMapCluster cluster = new FixedMapCluster();
    private final List<NodeEngine> engines = new ArrayList<>();
    private final List<SluiceServer> servers = new ArrayList<>();

    @AfterEach
    void stop() {
        for (SluiceServer s : servers) {
            s.closeConnections();
        }
        for (NodeEngine n : engines) {
            n.close();
        }
    }

    /** Starts nodes with the cache and a server each, serving the cluster's map (set by the test). */
    private void startNodes(int n) {
        for (int i = 0; i < n; i++) {
            NodeEngine node = new NodeEngine(NodeConfig.builder().dataRegionMaxSize(64L << 20).applyThreads(2).build());
            engines.add(node);
            node.createCache(CacheConfig.named(CACHE).withPartitions(PARTITIONS));
            servers.add(SluiceServer.start(node, ServerConfig.defaults().withPort(0), cluster.viewOf(node.id())));
        }
    }

    /** A map of these nodes (indexes into the started ones), partition p to the (p % n)-th of them. */
    private void mapOver(int... nodes) {
        int[] owners = FixedMapCluster.roundRobin(PARTITIONS, nodes.length);
        cluster.setMap(members(nodes), owners);
    }

    private List<ClusterMap.Member> members(int... nodes) {
        List<String> ids = new ArrayList<>();
        List<Integer> ports = new ArrayList<>();
        for (int i : nodes) {
            ids.add(engines.get(i).id());
            ports.add(servers.get(i).address().getPort());
        }
        return FixedMapCluster.members(ids, ports);
    }

    /** Starts two nodes and maps the partitions over them, but for one that no node owns; returns the owners set. */
    private int[] twoNodesWithoutOwnerFor(int unowned) {
        startNodes(2);
        int[] owners = FixedMapCluster.roundRobin(PARTITIONS, 2);
        owners[unowned] = ClusterMap.NO_OWNER;
        cluster.setMap(members(0, 1), owners);
        return owners;
    }

    private Sluice connect(int node, Duration requestTimeout) {
        return SluiceClient.connect(ClientConfig.builder()
                .addresses("127.0.0.1:" + servers.get(node).address().getPort())
                .requestTimeout(requestTimeout).retryAttempts(2).retryInitialBackoff(Duration.ofMillis(20)).build());
    }

    private static int partitionOf(long key) {
        GrowableBuffer b = new GrowableBuffer(16);
        new BinaryContext().encode(key, b);
        return Partitioner.partition(b.array(), 0, b.position(), PARTITIONS);
    }

    private long localCount(int node, int partition) {
        return engines.get(node).nodeCache(CACHE).store(partition).size();
    }

    /** Every key held by any of these nodes, each once. */
    private Set<Long> distinctKeys(int... nodes) {
        Set<Long> keys = new HashSet<>();
        for (int i : nodes) {
            engines.get(i).<Long, Long>cache(CACHE).scan().forEach(e -> keys.add(e.getKey()));
        }
        return keys;
    }

    private static Set<Long> range(long from, long to) {
        Set<Long> keys = new HashSet<>();
        for (long k = from; k < to; k++) {
            keys.add(k);
        }
        return keys;
    }

    @Test
    void aStreamerAndPutsOverThreeNodesLandEveryEntryOnItsOwner() {
        startNodes(3);
        mapOver(0, 1, 2);
        try (Sluice client = connect(0, Duration.ofSeconds(10))) { // one address: the map names the others
            try (DataStreamer<Long, Long> s = client.dataStreamer(CACHE)) {
                for (long k = 0; k < 30_000; k++) {
                    s.addData(k, k * 10);
                }
            }
            Cache<Long, Long> cache = client.cache(CACHE);
            for (long k = 30_000; k < 30_300; k++) {
                cache.put(k, k * 10);
            }
            ClusterMap map = cluster.map();
            long total = 0;
            for (int node = 0; node < 3; node++) {
                for (int p = 0; p < PARTITIONS; p++) {
                    long here = localCount(node, p);
                    if (!engines.get(node).id().equals(map.owner(p))) {
                        assertThat(here).as("node %d holds partition %d it does not own", node, p).isZero();
                    }
                    total += here;
                }
                assertThat(engines.get(node).cache(CACHE).size()).as("node %d got its share", node).isPositive();
            }
            assertThat(total).isEqualTo(30_300);
            assertThat(cache.size()).isEqualTo(30_300);
            Map<Long, Long> scanned = cache.scan().collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
            assertThat(scanned).hasSize(30_300).containsEntry(12_345L, 123_450L).containsEntry(30_299L, 302_990L);
            assertThat(cache.get(29_999L)).isEqualTo(299_990L);
            assertThat(cache.getAll(Set.of(1L, 2L, 3L, 4L, 5L, -7L))).containsOnlyKeys(1L, 2L, 3L, 4L, 5L);
            assertThat(cache.remove(30_000L)).isTrue();
            assertThat(cache.get(30_000L)).isNull();
            cache.putAll(Map.of(-1L, 1L, -2L, 2L, -3L, 3L));
            assertThat(cache.size()).isEqualTo(30_302);
            assertThat(client.cacheNames()).containsExactly(CACHE);
        }
        assertThat(cluster.refusals).hasValue(0); // the client's map was right throughout
        assertThat(cluster.writesInside).hasValue(0);
    }

    @Test
    void movingPartitionsMidStreamLosesNothing() {
        startNodes(3);
        mapOver(0, 1, 2);
        try (Sluice client = connect(1, Duration.ofSeconds(10))) {
            Cache<Long, Long> cache = client.cache(CACHE);
            try (DataStreamer<Long, Long> s = client.dataStreamer(CACHE)) {
                for (long k = 0; k < 20_000; k++) {
                    s.addData(k, k);
                }
                s.flush();
                // Node 0's partitions go to node 1: node 0 answers NOT_OWNER from now on; the client does not know.
                int[] owners = FixedMapCluster.roundRobin(PARTITIONS, 3);
                for (int p = 0; p < PARTITIONS; p++) {
                    if (owners[p] == 0) {
                        owners[p] = 1;
                    }
                }
                cluster.setMap(members(0, 1, 2), owners);
                for (long k = 20_000; k < 40_000; k++) {
                    s.addData(k, k);
                }
            }
            for (long k = 40_000; k < 40_100; k++) {
                cache.put(k, k);
            }
            assertThat(cluster.refusals.get()).as("the old owner refused the stale client").isPositive();
            assertThat(distinctKeys(0, 1, 2)).isEqualTo(range(0, 40_100));
            // After the move nothing new reached node 0.
            assertThat(distinctKeys(0)).allMatch(k -> k < 20_000);
            assertThat(cache.size()).isEqualTo(distinctKeys(1, 2).size());
        }
        assertThat(cluster.writesInside).hasValue(0);
    }

    @Test
    void keyedOpsFollowTheirPartitionToItsNewOwner() {
        startNodes(3);
        mapOver(0, 1, 2);
        // Every node holds every entry (as if moved already): wherever a request lands, it finds its key.
        for (NodeEngine node : engines) {
            Cache<Long, BinaryObject> local = node.<Long, BinaryObject>cache(CACHE).withKeepBinary();
            for (long k = 0; k < 1_000; k++) {
                local.put(k, node.binary().builder("Order").setLong("q", k).build());
            }
        }
        try (Sluice client = connect(0, Duration.ofSeconds(10))) {
            Cache<Long, BinaryObject> cache = client.<Long, BinaryObject>cache(CACHE).withKeepBinary();
            assertThat((long) cache.get(1L).field("q")).isEqualTo(1L);
            long moved = keyOwnedBefore(2, 3);
            Set<Long> all = range(0, 1_000);
            // Before each operation node 2's partitions move (to node 0, then 1, ...): the client's map is stale each
            // time, the old owner refuses, and the operation must reach the new one.
            moveNode2PartitionsTo(0);
            int refused = cluster.refusals.get();
            assertThat((long) cache.get(moved).field("q")).isEqualTo(moved);
            refused = assertRefusedSince(refused);
            moveNode2PartitionsTo(1);
            assertThat(cache.getAll(all)).hasSize(1_000);
            refused = assertRefusedSince(refused);
            moveNode2PartitionsTo(0);
            Map<Long, Boolean> set = cache.invokeAll(all, Processors.setField("q", -5L));
            assertThat(set).hasSize(1_000);
            refused = assertRefusedSince(refused);
            // The write ran on the new owner only.
            assertThat((long) engines.get(0).<Long, BinaryObject>cache(CACHE).<BinaryObject>withKeepBinary()
                    .get(moved).field("q")).isEqualTo(-5L);
            assertThat((long) engines.get(1).<Long, BinaryObject>cache(CACHE).<BinaryObject>withKeepBinary()
                    .get(moved).field("q")).isEqualTo(moved);
            moveNode2PartitionsTo(1);
            assertThat(cache.remove(moved)).isTrue();
            refused = assertRefusedSince(refused);
            assertThat(engines.get(0).cache(CACHE).get(moved)).isNotNull();
            moveNode2PartitionsTo(0);
            // Node 0 holds all its entries, the moved key included: counted once, by the owner of the map.
            assertThat(cache.size()).isEqualTo(1_000);
            refused = assertRefusedSince(refused);
            moveNode2PartitionsTo(1);
            assertThat(cache.scan().map(Map.Entry::getKey).collect(Collectors.toSet())).hasSize(999)
                    .doesNotContain(moved);
            assertRefusedSince(refused);
        }
        assertThat(cluster.writesInside).hasValue(0);
    }

    /** A new map: the partitions the first map gave node 2 now belong to {@code node}. */
    private void moveNode2PartitionsTo(int node) {
        int[] owners = FixedMapCluster.roundRobin(PARTITIONS, 3);
        for (int p = 0; p < PARTITIONS; p++) {
            if (owners[p] == 2) {
                owners[p] = node;
            }
        }
        cluster.setMap(members(0, 1, 2), owners);
    }

    private int assertRefusedSince(int before) {
        int now = cluster.refusals.get();
        assertThat(now).as("a node refused the stale client").isGreaterThan(before);
        return now;
    }

    /** A key whose partition the round-robin map over {@code members} nodes gave to node {@code owner}. */
    private static long keyOwnedBefore(int owner, int members) {
        for (long k = 0; ; k++) {
            if (partitionOf(k) % members == owner) {
                return k;
            }
        }
    }

    @Test
    void aRefusingNodeWithAnOlderMapDoesNotHoldTheClientBack() {
        startNodes(3);
        mapOver(0, 1, 2);
        try (Sluice client = connect(0, Duration.ofSeconds(10))) {
            Cache<Long, Long> cache = client.cache(CACHE);
            cache.put(1L, 1L);
            // Node 2 refuses its old partitions by the new map but still hands out the old one when asked.
            cluster.lagBehind(engines.get(2).id());
            moveNode2PartitionsTo(0);
            long moved = keyOwnedBefore(2, 3);
            int refused = cluster.refusals.get();
            cache.put(moved, 7L);
            assertRefusedSince(refused);
            assertThat(engines.get(0).cache(CACHE).get(moved)).isEqualTo(7L);
            assertThat(engines.get(2).cache(CACHE).get(moved)).isNull();
        }
    }

    @Test
    void aPartitionWithoutOwnerForAWhileIsDeliveredOnceItHasOne() throws Exception {
        int unowned = 5;
        int[] owners = twoNodesWithoutOwnerFor(unowned);
        long key = keyIn(unowned);
        try (Sluice client = connect(0, Duration.ofSeconds(30))) {
            Cache<Long, Long> cache = client.cache(CACHE);
            DataStreamer<Long, Long> s = client.dataStreamer(CACHE);
            for (long k = 0; k < 5_000; k++) {
                s.addData(k, k);
            }
            CompletableFuture<Void> flushed = CompletableFuture.runAsync(s::flush);
            CompletableFuture<Void> put = cache.putAsync(key, -1L);
            int asked = cluster.mapAsks.get();
            // The client waits for an owner, asking for the map again now and then.
            await().atMost(20, TimeUnit.SECONDS).until(() -> cluster.mapAsks.get() >= asked + 2);
            assertThat(flushed).isNotDone();
            assertThat(put).isNotDone();
            owners[unowned] = 1;
            cluster.setMap(members(0, 1), owners);
            flushed.get(30, TimeUnit.SECONDS);
            put.get(30, TimeUnit.SECONDS);
            s.close();
            assertThat(localCount(1, unowned)).isPositive();
            assertThat(cache.get(key)).isEqualTo(-1L);
            Set<Long> expected = range(0, 5_000);
            expected.add(key);
            assertThat(distinctKeys(0, 1)).isEqualTo(expected);
        }
    }

    @Test
    void aRetryWaitingOutItsBackoffGoesOnSoonAfterTheMapGivesItsPartitionAnOwner() throws Exception {
        int unowned = 9;
        int[] owners = twoNodesWithoutOwnerFor(unowned);
        long key = keyIn(unowned);
        // A first retry waits 2.5-7.5 s here (5 s with jitter): a call that only waited out its backoff would go on
        // seconds after the map changed, as after a failover's promotion.
        try (Sluice client = SluiceClient.connect(ClientConfig.builder()
                .addresses("127.0.0.1:" + servers.get(0).address().getPort()).requestTimeout(Duration.ofSeconds(60))
                .retryInitialBackoff(Duration.ofSeconds(5)).build())) {
            CompletableFuture<Void> put = client.<Long, Long>cache(CACHE).putAsync(key, 7L);
            int asked = cluster.mapAsks.get();
            await().atMost(20, TimeUnit.SECONDS).until(() -> cluster.mapAsks.get() > asked); // the put is waiting
            assertThat(put).isNotDone();
            owners[unowned] = 1;
            long changed = System.nanoTime();
            cluster.setMap(members(0, 1), owners);
            put.get(30, TimeUnit.SECONDS);
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - changed);
            assertThat(tookMillis).as("ms from the map change to the put's acknowledgement").isLessThan(2_000);
            assertThat(engines.get(1).<Long, Long>cache(CACHE).get(key)).isEqualTo(7L);
        }
    }

    @Test
    void aClientOfNodesNotJoinedYetWaitsForTheirMap() throws Exception {
        startNodes(2);
        cluster.setMap(List.of(), new int[0]); // what a member serves before it has joined: nothing, no partitions
        try (Sluice client = connect(0, Duration.ofSeconds(30))) {
            Cache<Long, Long> cache = client.cache(CACHE);
            DataStreamer<Long, Long> s = client.dataStreamer(CACHE);
            for (long k = 0; k < 1_000; k++) {
                s.addData(k, k);
            }
            CompletableFuture<Void> flushed = CompletableFuture.runAsync(s::flush);
            CompletableFuture<Void> put = cache.putAsync(-1L, -1L);
            int asked = cluster.mapAsks.get();
            await().atMost(20, TimeUnit.SECONDS).until(() -> cluster.mapAsks.get() >= asked + 2);
            assertThat(flushed).isNotDone();
            assertThat(put).isNotDone();
            mapOver(0, 1);
            flushed.get(30, TimeUnit.SECONDS);
            put.get(30, TimeUnit.SECONDS);
            s.close();
            Set<Long> expected = range(0, 1_000);
            expected.add(-1L);
            assertThat(distinctKeys(0, 1)).isEqualTo(expected);
            assertThat(cache.size()).isEqualTo(1_001);
        }
    }

    @Test
    void noOwnerPastTheRequestTimeoutFailsNamingThePartition() {
        int unowned = 7;
        twoNodesWithoutOwnerFor(unowned);
        long key = keyIn(unowned);
        try (Sluice client = connect(0, Duration.ofMillis(800))) {
            Cache<Long, Long> cache = client.cache(CACHE);
            assertThatThrownBy(() -> cache.put(key, 1L)).isInstanceOf(NodeUnreachableException.class)
                    .hasMessageContaining("no node served partition " + unowned)
                    .hasMessageContaining("cache '" + CACHE + "'");
            DataStreamer<Long, Long> s = client.dataStreamer(CACHE);
            s.addData(key, 1L);
            s.addData(keyIn(0), 1L);
            assertThatThrownBy(s::flush).isInstanceOf(StreamerException.class)
                    .hasMessageContaining("1 entries in 1 batches failed")
                    .hasMessageContaining("no node served partition " + unowned);
            s.close(true);
            assertThat(cache.get(keyIn(0))).isEqualTo(1L); // the other partition's batch went through
        }
    }

    @Test
    void aClientWithAStaleMapDeliversEverything() {
        startNodes(4);
        mapOver(0, 1, 2);
        try (Sluice client = connect(0, Duration.ofSeconds(15))) {
            Cache<Long, Long> cache = client.cache(CACHE);
            try (DataStreamer<Long, Long> s = client.dataStreamer(CACHE)) {
                for (long k = 0; k < 10_000; k++) {
                    s.addData(k, k);
                }
                s.flush();
                // Node 2 leaves (its server stops), node 3 joins and takes its partitions; the client is not told.
                servers.get(2).closeConnections();
                int[] owners = FixedMapCluster.roundRobin(PARTITIONS, 3);
                cluster.setMap(members(0, 1, 3), owners);
                for (long k = 10_000; k < 20_000; k++) {
                    s.addData(k, k);
                }
            }
            for (long k = 20_000; k < 20_100; k++) {
                cache.put(k, k);
            }
            assertThat(distinctKeys(0, 1, 3)).containsAll(range(10_000, 20_100));
            assertThat(distinctKeys(0, 1, 2, 3)).isEqualTo(range(0, 20_100));
            assertThat(cache.size()).isEqualTo(distinctKeys(0, 1, 3).size());
        }
    }

    @Test
    void standaloneNodesAnswerTheirModeAndClientsRouteAsBefore() {
        NodeEngine a = new NodeEngine(NodeConfig.builder().dataRegionMaxSize(64L << 20).applyThreads(2).build());
        engines.add(a);
        servers.add(SluiceServer.start(a, ServerConfig.defaults().withPort(0)));
        try (Sluice client = connect(0, Duration.ofSeconds(10))) {
            client.createCache(CacheConfig.named(CACHE).withPartitions(PARTITIONS));
            try (DataStreamer<Long, Long> s = client.dataStreamer(CACHE)) {
                for (long k = 0; k < 1_000; k++) {
                    s.addData(k, k);
                }
            }
            assertThat(client.<Long, Long>cache(CACHE).size()).isEqualTo(1_000);
            assertThat(a.cache(CACHE).size()).isEqualTo(1_000);
        }
    }

    /** A key of the partition. */
    private static long keyIn(int partition) {
        for (long k = 1_000_000; ; k++) {
            if (partitionOf(k) == partition) {
                return k;
            }
        }
    }
}
