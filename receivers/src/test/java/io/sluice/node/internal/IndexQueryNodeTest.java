package io.sluice.node.internal;

import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.DataStreamer;
import io.sluice.IndexFieldTypeConflictException;
import io.sluice.IndexNotFoundException;
import io.sluice.IndexQuery;
import io.sluice.IndexValueTypeException;
import io.sluice.binary.BinaryObject;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
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

/** Index queries on an embedded node: what they find, in which order, and their errors. */
@Timeout(120)
class IndexQueryNodeTest {

    /** The StockOrder shape, marshalled as a binary object with these fields. */
    public record Order(String secCode, String account, double price, long qty) {
    }

    static final String[] CODES = {"GAZP", "LKOH", "SBER", "YNDX"};

    private NodeEngine node;

    @BeforeEach
    void start() {
        node = new NodeEngine(NodeEngineTest.smallNode().build());
    }

    @AfterEach
    void stop() {
        node.close();
    }

    static Map<Long, Order> orders(int n, long seed) {
        Random random = new Random(seed);
        Map<Long, Order> orders = new LinkedHashMap<>();
        for (long k = 0; k < n; k++) {
            orders.put(k, new Order(CODES[random.nextInt(CODES.length)], "A" + random.nextInt(20),
                    Math.round(random.nextDouble() * 10_000) / 100.0, random.nextInt(1000)));
        }
        return orders;
    }

    private Map<Long, Order> loaded(Cache<Long, Order> cache, int n) {
        Map<Long, Order> orders = orders(n, 7);
        try (DataStreamer<Long, Order> streamer = node.dataStreamer(cache.name())) {
            orders.forEach(streamer::addData);
        }
        return orders;
    }

    /** The model's answer: the matching keys, by the comparator (the index's order), then by key. */
    static List<Long> model(Map<Long, Order> orders, Predicate<Order> match, Comparator<Order> order) {
        return orders.entrySet().stream().filter(e -> match.test(e.getValue()))
                .sorted(Map.Entry.<Long, Order>comparingByValue(order).thenComparing(Map.Entry.comparingByKey()))
                .map(Map.Entry::getKey).toList();
    }

    static List<Long> keys(Stream<Map.Entry<Long, Order>> result) {
        try (result) {
            return result.map(Map.Entry::getKey).toList();
        }
    }

    @Test
    void equalityFindsEveryMatchInKeyOrder() {
        Cache<Long, Order> cache = node.createCache(CacheConfig.named("orders").withPartitions(16).index("secCode"));
        Map<Long, Order> orders = loaded(cache, 3_000);
        for (String code : CODES) {
            assertThat(keys(cache.query(IndexQuery.on("secCode").eq(code))))
                    .isEqualTo(model(orders, o -> o.secCode().equals(code), Comparator.comparing(Order::secCode)));
        }
        assertThat(keys(cache.query(IndexQuery.on("secCode").eq("NONE")))).isEmpty();
        Map.Entry<Long, Order> first = cache.query(IndexQuery.on("secCode").eq("SBER").limit(1)).findFirst()
                .orElseThrow();
        assertThat(first.getValue()).isEqualTo(orders.get(first.getKey()));
    }

    @Test
    void rangesAndCompositePrefixesFollowTheIndexOrder() {
        Cache<Long, Order> cache = node.createCache(CacheConfig.named("orders").withPartitions(8)
                .index("account", "price").index("qty"));
        Map<Long, Order> orders = loaded(cache, 3_000);
        Comparator<Order> byAccountPrice = Comparator.comparing(Order::account).thenComparingDouble(Order::price);
        Comparator<Order> byQty = Comparator.comparingLong(Order::qty);

        assertThat(keys(cache.query(IndexQuery.on("account", "price").eq("A3").between(10.0, 50.0))))
                .isEqualTo(model(orders, o -> o.account().equals("A3") && o.price() >= 10 && o.price() <= 50,
                        byAccountPrice));
        assertThat(keys(cache.query(IndexQuery.on("account", "price").eq("A3").gt(90.0))))
                .isEqualTo(model(orders, o -> o.account().equals("A3") && o.price() > 90, byAccountPrice));
        assertThat(keys(cache.query(IndexQuery.on("account", "price").eq("A3", 50.0))))
                .isEqualTo(model(orders, o -> o.account().equals("A3") && o.price() == 50.0, byAccountPrice));
        assertThat(keys(cache.query(IndexQuery.on("account", "price").eq("A3"))))
                .isEqualTo(model(orders, o -> o.account().equals("A3"), byAccountPrice));
        assertThat(keys(cache.query(IndexQuery.on("account", "price").ge("A18"))))
                .isEqualTo(model(orders, o -> o.account().compareTo("A18") >= 0, byAccountPrice));
        assertThat(keys(cache.query(IndexQuery.on("qty").lt(10L))))
                .isEqualTo(model(orders, o -> o.qty() < 10, byQty));
        assertThat(keys(cache.query(IndexQuery.on("qty").le(10L))))
                .isEqualTo(model(orders, o -> o.qty() <= 10, byQty));
        assertThat(keys(cache.query(IndexQuery.on("qty").gt(990L))))
                .isEqualTo(model(orders, o -> o.qty() > 990, byQty));
        assertThat(keys(cache.query(IndexQuery.on("qty"))))
                .isEqualTo(model(orders, o -> true, byQty));
    }

    @Test
    void limitsAndPagesAcrossPartitionsAndWrites() {
        Cache<Long, Order> cache = node.createCache(CacheConfig.named("orders").withPartitions(4).index("secCode"));
        Map<Long, Order> orders = new LinkedHashMap<>();
        for (long k = 0; k < 10_000; k++) { // far more than a partition's page (IndexReads.MAX_PAGE)
            orders.put(k, new Order("SBER", "A", 1.0, k));
        }
        cache.putAll(orders);
        List<Long> all = keys(cache.query(IndexQuery.on("secCode").eq("SBER")));
        assertThat(all).hasSize(10_000).isSorted();
        assertThat(keys(cache.query(IndexQuery.on("secCode").eq("SBER").limit(7)))).isEqualTo(all.subList(0, 7));

        // Writes move index entries: a put changes the field, a remove takes the entry out.
        cache.put(5L, new Order("GAZP", "A", 1.0, 5));
        cache.remove(6L);
        assertThat(keys(cache.query(IndexQuery.on("secCode").eq("GAZP")))).containsExactly(5L);
        assertThat(keys(cache.query(IndexQuery.on("secCode").eq("SBER")))).hasSize(9_998).doesNotContain(5L, 6L);
    }

    @Test
    void valuesThatAreNotObjectsOrLackTheFieldAreNotIndexed() {
        Cache<Long, Object> cache = node.createCache(CacheConfig.named("mixed").withPartitions(4).index("secCode"));
        cache.put(1L, "a string");
        cache.put(2L, node.binary().builder("Other").setField("name", "x").build());
        cache.put(3L, new Order("SBER", "A", 1.0, 1));
        assertThat(cache.query(IndexQuery.on("secCode")).map(Map.Entry::getKey).toList()).containsExactly(3L);
    }

    @Test
    void unknownIndexWrongTypeAndDisagreeingEntriesAreSpecificErrors() {
        Cache<Long, Object> cache = node.createCache(CacheConfig.named("orders").withPartitions(4).index("qty")
                .index("x"));
        cache.put(1L, new Order("SBER", "A", 1.0, 5));
        assertThatThrownBy(() -> cache.query(IndexQuery.on("price")))
                .isInstanceOf(IndexNotFoundException.class).hasMessageContaining("no index on [price]")
                .hasMessageContaining("[[qty], [x]]");
        assertThatThrownBy(() -> cache.query(IndexQuery.on("qty").eq(5)))
                .isInstanceOf(IndexValueTypeException.class).hasMessageContaining("holds long values")
                .hasMessageContaining("gave a int");
        assertThat(cache.query(IndexQuery.on("qty").eq(5L)).map(Map.Entry::getKey).toList()).containsExactly(1L);

        BinaryObject asInt = node.binary().builder("T1").setField("x", 1).build();
        BinaryObject asLong = node.binary().builder("T2").setField("x", 2L).build();
        cache.put(10L, asInt);
        cache.put(11L, asLong);
        assertThatThrownBy(() -> cache.query(IndexQuery.on("x").ge(0L)))
                .isInstanceOf(IndexFieldTypeConflictException.class)
                .hasMessageContaining("hold field 'x'").hasMessageContaining("int and long");
        // Nothing stored is affected.
        assertThat(cache.size()).isEqualTo(3);
        cache.remove(10L);
        assertThat(cache.query(IndexQuery.on("x").ge(0L)).map(Map.Entry::getKey).toList()).containsExactly(11L);
    }

    @Test
    void anIndexAddedToACacheWithDataIsBuiltInTheBackgroundAndCanBeDestroyed() {
        Cache<Long, Order> cache = node.createCache(CacheConfig.named("orders").withPartitions(32));
        Map<Long, Order> orders = loaded(cache, 20_000);
        assertThatThrownBy(() -> cache.query(IndexQuery.on("secCode").eq("SBER")))
                .isInstanceOf(IndexNotFoundException.class);

        assertThat(cache.createIndex("secCode")).isTrue();
        assertThat(cache.createIndex("secCode")).isFalse();
        assertThat(((NodeCache<?, ?>) cache).config().indexes()).containsExactly(List.of("secCode"));
        List<String> seen = new ArrayList<>();
        List<Long> expected = model(orders, o -> o.secCode().equals("SBER"), Comparator.comparing(Order::secCode));
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> {
            try {
                return keys(cache.query(IndexQuery.on("secCode").eq("SBER"))).equals(expected);
            } catch (IllegalStateException building) {
                seen.add(building.getMessage());
                return false;
            }
        });
        assertThat(seen).allSatisfy(m -> assertThat(m).contains("is being built").contains("partitions done"));

        assertThat(cache.destroyIndex("secCode")).isTrue();
        assertThat(cache.destroyIndex("secCode")).isFalse();
        assertThatThrownBy(() -> cache.query(IndexQuery.on("secCode").eq("SBER")))
                .isInstanceOf(IndexNotFoundException.class);
        assertThat(((NodeCache<?, ?>) cache).config().indexes()).isEmpty();
        cache.put(1L, new Order("SBER", "A", 1.0, 1)); // writes go on without the index
        assertThat(cache.get(1L).secCode()).isEqualTo("SBER");
    }
}
