package io.sluice.server.internal;

import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.DataStreamer;
import io.sluice.IndexFieldTypeConflictException;
import io.sluice.IndexNotFoundException;
import io.sluice.IndexQuery;
import io.sluice.IndexValueTypeException;
import io.sluice.Sluice;
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
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Predicate;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Index queries over the protocol (INDEX_QUERY, paged): from one node, and fanned out to the members of a cluster
 * (a map the test sets, {@link FixedMapCluster}) and merged by index key; the errors arrive as the embedded node's.
 */
@Timeout(120)
class RemoteIndexQueryTest {

    /** The StockOrder shape. */
    public record Order(String secCode, String account, double price, long qty) {
    }

    private static final String[] CODES = {"GAZP", "LKOH", "SBER", "YNDX"};
    private static final int PARTITIONS = 32;

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

    private static CacheConfig ordersConfig() {
        return CacheConfig.named("orders").withPartitions(PARTITIONS).index("secCode").index("account", "price")
                .index("qty");
    }

    /** Nodes with the indexed cache and a server each; clustered: serving the test's map (partition p on p % n). */
    private Sluice start(int n, boolean clustered) {
        for (int i = 0; i < n; i++) {
            NodeEngine node = new NodeEngine(NodeConfig.builder().dataRegionMaxSize(128L << 20).applyThreads(2).build());
            engines.add(node);
            node.createCache(ordersConfig());
            servers.add(clustered ? SluiceServer.start(node, ServerConfig.defaults().withPort(0),
                    cluster.viewOf(node.id())) : SluiceServer.start(node, ServerConfig.defaults().withPort(0)));
        }
        if (clustered) {
            List<String> ids = new ArrayList<>();
            List<Integer> ports = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                ids.add(engines.get(i).id());
                ports.add(servers.get(i).address().getPort());
            }
            List<ClusterMap.Member> members = FixedMapCluster.members(ids, ports);
            cluster.setMap(members, FixedMapCluster.roundRobin(PARTITIONS, n));
        }
        return SluiceClient.connect(ClientConfig.builder()
                .addresses("127.0.0.1:" + servers.get(0).address().getPort())
                .requestTimeout(Duration.ofSeconds(20)).build());
    }

    private static Map<Long, Order> load(Sluice client, int n) {
        Random random = new Random(11);
        Map<Long, Order> orders = new LinkedHashMap<>();
        for (long k = 0; k < n; k++) {
            orders.put(k, new Order(CODES[random.nextInt(CODES.length)], "A" + random.nextInt(20),
                    Math.round(random.nextDouble() * 10_000) / 100.0, random.nextInt(1000)));
        }
        try (DataStreamer<Long, Order> s = client.dataStreamer("orders")) {
            orders.forEach(s::addData);
        }
        return orders;
    }

    private static List<Long> model(Map<Long, Order> orders, Predicate<Order> match, Comparator<Order> order) {
        return orders.entrySet().stream().filter(e -> match.test(e.getValue()))
                .sorted(Map.Entry.<Long, Order>comparingByValue(order).thenComparing(Map.Entry.comparingByKey()))
                .map(Map.Entry::getKey).toList();
    }

    private static List<Long> keys(Stream<Map.Entry<Long, Order>> result) {
        try (result) {
            return result.map(Map.Entry::getKey).toList();
        }
    }

    /** The same queries, answered by one node or by three members merged, equal the model. */
    private static void queriesEqualTheModel(Cache<Long, Order> cache, Map<Long, Order> orders) {
        Comparator<Order> byCode = Comparator.comparing(Order::secCode);
        Comparator<Order> byAccountPrice = Comparator.comparing(Order::account).thenComparingDouble(Order::price);
        Comparator<Order> byQty = Comparator.comparingLong(Order::qty);
        // SBER matches about 5,000 entries: more than a page (IndexQueryWire.MAX_PAGE), so the answer is paged.
        List<Long> sber = keys(cache.query(IndexQuery.on("secCode").eq("SBER")));
        assertThat(sber).hasSizeGreaterThan(4_096).isEqualTo(model(orders, o -> o.secCode().equals("SBER"), byCode));
        assertThat(keys(cache.query(IndexQuery.on("secCode").eq("SBER").limit(5)))).isEqualTo(sber.subList(0, 5));
        assertThat(keys(cache.query(IndexQuery.on("account", "price").eq("A7").between(20.0, 60.0))))
                .isEqualTo(model(orders, o -> o.account().equals("A7") && o.price() >= 20 && o.price() <= 60,
                        byAccountPrice));
        assertThat(keys(cache.query(IndexQuery.on("account", "price").ge("A10").lt("A12"))))
                .isEqualTo(model(orders, o -> o.account().compareTo("A10") >= 0 && o.account().compareTo("A12") < 0,
                        byAccountPrice));
        assertThat(keys(cache.query(IndexQuery.on("qty").gt(900L))))
                .isEqualTo(model(orders, o -> o.qty() > 900, byQty));
        Map.Entry<Long, Order> first = cache.query(IndexQuery.on("qty").le(3L)).findFirst().orElseThrow();
        assertThat(first.getValue()).isEqualTo(orders.get(first.getKey()));
    }

    @Test
    void oneNodeAnswersQueriesPageByPage() {
        try (Sluice client = start(1, false)) {
            Map<Long, Order> orders = load(client, 20_000);
            queriesEqualTheModel(client.cache("orders"), orders);
        }
    }

    @Test
    void aClustersMembersAreAskedAndTheirAnswersMergedByIndexKey() {
        try (Sluice client = start(3, true)) {
            Map<Long, Order> orders = load(client, 20_000);
            for (NodeEngine node : engines) { // each member holds a part, so the answer needs every one
                assertThat(node.nodeCache("orders").size()).isBetween(1L, 19_999L);
            }
            queriesEqualTheModel(client.cache("orders"), orders);
        }
    }

    /**
     * Every node holds every entry (streamed into each embedded), so whichever member the map names has what the
     * query needs; the map changes in the middle of the query: the members refuse the partitions they lost
     * (NOT_OWNER) and the query goes on with the new owners after the last index key it returned.
     */
    @Test
    void aQueryGoesOnAfterThePartitionsMoveInTheMiddleOfIt() {
        try (Sluice client = start(3, true)) {
            Map<Long, Order> orders = new LinkedHashMap<>();
            Random random = new Random(5);
            for (long k = 0; k < 20_000; k++) {
                orders.put(k, new Order(CODES[random.nextInt(CODES.length)], "A" + random.nextInt(20), 1.0, k));
            }
            for (NodeEngine node : engines) {
                try (DataStreamer<Long, Order> s = node.dataStreamer("orders")) {
                    orders.forEach(s::addData);
                }
            }
            List<Long> expected = model(orders, o -> o.secCode().equals("SBER"), Comparator.comparing(Order::secCode));
            List<Long> got = new ArrayList<>();
            int refusedBefore = cluster.refusals.get();
            try (Stream<Map.Entry<Long, Order>> s = client.<Long, Order>cache("orders")
                    .query(IndexQuery.on("secCode").eq("SBER"))) {
                var it = s.iterator();
                while (it.hasNext()) {
                    got.add(it.next().getKey());
                    if (got.size() == 1_000) { // each member has sent a second page by now, and has more
                        List<String> ids = engines.stream().map(NodeEngine::id).toList();
                        List<Integer> ports = servers.stream().map(x -> x.address().getPort()).toList();
                        int[] moved = new int[PARTITIONS];
                        for (int p = 0; p < PARTITIONS; p++) {
                            moved[p] = (p + 1) % 3;
                        }
                        cluster.setMap(FixedMapCluster.members(ids, ports), moved);
                    }
                }
            }
            assertThat(got).isEqualTo(expected);
            assertThat(cluster.refusals.get()).as("the old owners refused the moved partitions")
                    .isGreaterThan(refusedBefore);
        }
    }

    @Test
    void indexesDeclaredCreatedAndDestroyedThroughTheClient() {
        try (Sluice client = start(1, false)) {
            Cache<Long, Order> made = client.createCache(CacheConfig.named("made").withPartitions(16).index("qty"));
            Map<Long, Order> orders = new LinkedHashMap<>();
            for (long k = 0; k < 5_000; k++) {
                orders.put(k, new Order(CODES[(int) (k % 4)], "A" + k % 7, k / 10.0, k % 100));
            }
            made.putAll(orders);
            assertThat(keys(made.query(IndexQuery.on("qty").eq(42L))))
                    .isEqualTo(model(orders, o -> o.qty() == 42, Comparator.comparingLong(Order::qty)));

            assertThat(made.createIndex("account", "price")).isTrue();
            assertThat(made.createIndex("account", "price")).isFalse();
            List<Long> expected = model(orders, o -> o.account().equals("A3") && o.price() < 100,
                    Comparator.comparing(Order::account).thenComparingDouble(Order::price));
            List<String> building = new ArrayList<>();
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> {
                try {
                    return keys(made.query(IndexQuery.on("account", "price").eq("A3").lt(100.0))).equals(expected);
                } catch (IllegalStateException notYet) {
                    building.add(notYet.getMessage());
                    return false;
                }
            });
            assertThat(building).allSatisfy(m -> assertThat(m).contains("is being built"));
            assertThat(engines.get(0).nodeCache("made").config().indexes())
                    .containsExactly(List.of("qty"), List.of("account", "price"));
            assertThat(made.destroyIndex("qty")).isTrue();
            assertThatThrownBy(() -> made.query(IndexQuery.on("qty"))).isInstanceOf(IndexNotFoundException.class);
        }
    }

    @Test
    void errorsArriveAsTheEmbeddedNodesExceptions() {
        try (Sluice client = start(1, false)) {
            Cache<Long, Object> cache = client.cache("orders");
            cache.put(1L, new Order("SBER", "A", 1.0, 5));
            assertThatThrownBy(() -> cache.query(IndexQuery.on("price"))).isInstanceOf(IndexNotFoundException.class)
                    .hasMessageContaining("no index on [price]");
            assertThatThrownBy(() -> cache.query(IndexQuery.on("qty").eq(5)))
                    .isInstanceOf(IndexValueTypeException.class).hasMessageContaining("holds long values");
            cache.put(2L, client.binary().builder("Other").setField("qty", "five").build());
            assertThatThrownBy(() -> cache.query(IndexQuery.on("qty").eq(5L)))
                    .isInstanceOf(IndexFieldTypeConflictException.class).hasMessageContaining("long and String");
            cache.remove(2L);
            assertThat(cache.query(IndexQuery.on("qty").eq(5L)).map(Map.Entry::getKey).toList()).containsExactly(1L);

            assertThat(cache.destroyIndex("qty")).isTrue();
            assertThat(cache.destroyIndex("qty")).isFalse();
            assertThatThrownBy(() -> cache.query(IndexQuery.on("qty").eq(5L)))
                    .isInstanceOf(IndexNotFoundException.class);
            assertThat(engines.get(0).nodeCache("orders").config().indexes())
                    .containsExactly(List.of("secCode"), List.of("account", "price"));
        }
    }
}
