package io.sluice.server.internal;

import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.Sluice;
import io.sluice.affinity.internal.Partitioner;
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
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scans of a cache read from backups ({@code CacheConfig.readFromBackup}): the client reads each partition from one
 * of its copies in the map (owner or backup), a node answers SCAN for a partition the map has it back, and a backup
 * that refuses sends the scan on to the owner. Real nodes and servers on 127.0.0.1 serving a map the test sets
 * ({@link FixedMapCluster}); nothing replicates here, so each node's copy holds values naming that node, and a
 * scanned value says which copy answered.
 */
@Timeout(120)
class ScanFromBackupsTest {

    private static final int PARTITIONS = 16;
    private static final int NODES = 3;
    private static final long KEYS = 2_000;

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

    /** Nodes with both caches, each copy filled with values naming its node; partition p owned by node p % 3. */
    private void startNodes(CacheConfig... caches) {
        List<String> ids = new ArrayList<>();
        List<Integer> ports = new ArrayList<>();
        for (int i = 0; i < NODES; i++) {
            NodeEngine node = new NodeEngine(NodeConfig.builder().dataRegionMaxSize(64L << 20).applyThreads(2).build());
            engines.add(node);
            for (CacheConfig c : caches) {
                Cache<Long, String> cache = node.createCache(c);
                for (long k = 0; k < KEYS; k++) {
                    cache.put(k, node.id());
                }
            }
            servers.add(SluiceServer.start(node, ServerConfig.defaults().withPort(0), cluster.viewOf(node.id())));
            ids.add(node.id());
            ports.add(servers.get(i).address().getPort());
        }
        int[] owners = FixedMapCluster.roundRobin(PARTITIONS, NODES);
        int[][] backups = new int[PARTITIONS][];
        for (int p = 0; p < PARTITIONS; p++) {
            backups[p] = new int[]{(p + 1) % NODES}; // one backup: the next node
        }
        cluster.setMap(FixedMapCluster.members(ids, ports), owners, backups);
    }

    private Sluice connect() {
        return SluiceClient.connect(ClientConfig.builder()
                .addresses("127.0.0.1:" + servers.get(0).address().getPort())
                .requestTimeout(Duration.ofSeconds(20)).retryAttempts(2).retryInitialBackoff(Duration.ofMillis(20))
                .build());
    }

    private static int partitionOf(long key) {
        GrowableBuffer b = new GrowableBuffer(16);
        new BinaryContext().encode(key, b);
        return Partitioner.partition(b.array(), 0, b.position(), PARTITIONS);
    }

    /** Scans the cache (several times: each scan picks its copies anew); per partition, the nodes that answered. */
    private Map<Integer, Set<String>> scanRounds(Sluice client, String cache, int rounds) {
        Map<Integer, Set<String>> answeredBy = new HashMap<>();
        for (int r = 0; r < rounds; r++) {
            Map<Long, String> seen = new HashMap<>();
            client.<Long, String>cache(cache).scan().forEach(e -> seen.put(e.getKey(), e.getValue()));
            assertThat(seen).as("every key, once").hasSize((int) KEYS);
            seen.forEach((k, node) -> answeredBy.computeIfAbsent(partitionOf(k), p -> new HashSet<>()).add(node));
        }
        return answeredBy;
    }

    private String owner(int p) {
        return engines.get(p % NODES).id();
    }

    private String backup(int p) {
        return engines.get((p + 1) % NODES).id();
    }

    @Test
    void scansOfACacheReadFromBackupsSpreadOverTheCopiesTheMapNames() {
        startNodes(CacheConfig.named("spread").withPartitions(PARTITIONS).withBackups(1).withReadFromBackup(true));
        try (Sluice client = connect()) {
            Map<Integer, Set<String>> answeredBy = scanRounds(client, "spread", 8);

            for (int p = 0; p < PARTITIONS; p++) {
                assertThat(answeredBy.get(p)).as("partition %d: owner or backup only", p)
                        .isSubsetOf(owner(p), backup(p));
            }
            long fromBackups = answeredBy.entrySet().stream().filter(e -> e.getValue().contains(backup(e.getKey())))
                    .count();
            assertThat(fromBackups).as("partitions read from their backup at least once in 8 scans").isPositive();
            assertThat(cluster.backupScans.get()).isPositive();
            assertThat(cluster.refusals.get()).isZero();
        }
    }

    @Test
    void aCacheNotReadFromBackupsIsScannedFromOwnersOnly() {
        startNodes(CacheConfig.named("owners").withPartitions(PARTITIONS).withBackups(1));
        try (Sluice client = connect()) {
            Map<Integer, Set<String>> answeredBy = scanRounds(client, "owners", 4);

            for (int p = 0; p < PARTITIONS; p++) {
                assertThat(answeredBy.get(p)).as("partition %d", p).containsExactly(owner(p));
            }
            assertThat(cluster.backupScans.get()).isZero();
        }
    }

    @Test
    void aBackupThatRefusesSendsTheScanOnToTheOwner() {
        startNodes(CacheConfig.named("refused").withPartitions(PARTITIONS).withBackups(1).withReadFromBackup(true));
        cluster.refusingBackups.add(engines.get(1).id()); // backs partitions 0, 3, 6, ...: catching up, say
        try (Sluice client = connect()) {
            Map<Integer, Set<String>> answeredBy = scanRounds(client, "refused", 8);

            for (int p = 0; p < PARTITIONS; p++) {
                if (backup(p).equals(engines.get(1).id())) {
                    assertThat(answeredBy.get(p)).as("partition %d: its backup refuses", p).containsExactly(owner(p));
                }
            }
            assertThat(cluster.refusals.get()).as("the refusing backup was tried").isPositive();
        }
    }
}
