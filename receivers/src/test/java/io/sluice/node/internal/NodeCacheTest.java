package io.sluice.node.internal;

import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.binary.BinaryObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@Timeout(60)
class NodeCacheTest {

    /** A value class the binary context marshals as a POJO. */
    public record Person(String name, int age) {
    }

    private NodeEngine node;
    private Cache<Long, String> cache;

    @BeforeEach
    void start() {
        node = new NodeEngine(NodeEngineTest.smallNode().build());
        cache = node.createCache(CacheConfig.named("people").withPartitions(16));
    }

    @AfterEach
    void stop() {
        node.close();
    }

    @Test
    void putThenGetReturnsTheValue() {
        cache.put(1L, "one");
        cache.put(1L, "uno");
        cache.put(2L, "two");

        assertThat(cache.get(1L)).isEqualTo("uno");
        assertThat(cache.get(2L)).isEqualTo("two");
        assertThat(cache.get(3L)).isNull();
        assertThat(cache.size()).isEqualTo(2);
        assertThat(cache.name()).isEqualTo("people");
    }

    @Test
    void putIfAbsentKeepsThePresentValue() {
        assertThat(cache.putIfAbsent(1L, "first")).isTrue();
        assertThat(cache.putIfAbsent(1L, "second")).isFalse();

        assertThat(cache.get(1L)).isEqualTo("first");
    }

    @Test
    void removeSaysWhetherTheKeyWasPresent() {
        cache.put(1L, "one");

        assertThat(cache.remove(1L)).isTrue();
        assertThat(cache.remove(1L)).isFalse();
        assertThat(cache.get(1L)).isNull();
        assertThat(cache.size()).isZero();
    }

    @Test
    void bulkOperationsCoverEveryKey() {
        Map<Long, String> entries = new TreeMap<>();
        for (long k = 0; k < 500; k++) {
            entries.put(k, "v" + k);
        }
        cache.putAll(entries);

        assertThat(cache.size()).isEqualTo(500);
        assertThat(cache.getAll(Set.of(3L, 7L, 1000L))).containsOnly(Map.entry(3L, "v3"), Map.entry(7L, "v7"));

        cache.removeAll(List.of(3L, 7L, 1000L));

        assertThat(cache.size()).isEqualTo(498);
        assertThat(cache.get(3L)).isNull();
    }

    @Test
    void scanYieldsEveryEntryOnce() {
        for (long k = 0; k < 1000; k++) {
            cache.put(k, "v" + k);
        }

        Map<Long, String> scanned;
        try (Stream<Map.Entry<Long, String>> stream = cache.scan()) {
            scanned = stream.collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
        }

        assertThat(scanned).hasSize(1000);
        for (long k = 0; k < 1000; k++) {
            assertThat(scanned.get(k)).isEqualTo("v" + k);
        }
    }

    @Test
    void scanIsLazy() {
        for (long k = 0; k < 100; k++) {
            cache.put(k, "v" + k);
        }

        try (Stream<Map.Entry<Long, String>> stream = cache.scan()) {
            assertThat(stream.limit(3).count()).isEqualTo(3);
        }
    }

    @Test
    void pojoValuesRoundTripAndKeepBinaryViewsThemAsBinaryObjects() {
        Cache<String, Person> people = node.createCache(CacheConfig.named("pojos").withPartitions(4));
        people.put("ann", new Person("Ann", 41));

        assertThat(people.get("ann")).isEqualTo(new Person("Ann", 41));
        Cache<String, BinaryObject> binary = people.withKeepBinary();
        BinaryObject ann = binary.get("ann");
        assertThat(ann.<String>field("name")).isEqualTo("Ann");
        assertThat(ann.<Integer>field("age")).isEqualTo(41);
    }

    @Test
    void nullArgumentsAreNamed() {
        assertThatThrownBy(() -> cache.get(null)).isInstanceOf(NullPointerException.class).hasMessage("key");
        assertThatThrownBy(() -> cache.put(null, "v")).isInstanceOf(NullPointerException.class).hasMessage("key");
        assertThatThrownBy(() -> cache.put(1L, null)).isInstanceOf(NullPointerException.class).hasMessage("value");
        assertThatThrownBy(() -> cache.putIfAbsent(1L, null)).isInstanceOf(NullPointerException.class)
                .hasMessage("value");
        assertThatThrownBy(() -> cache.remove(null)).isInstanceOf(NullPointerException.class).hasMessage("key");
    }

    @Test
    void keysOfDifferentTypesAreDifferentKeys() {
        Cache<Object, String> any = node.createCache(CacheConfig.named("any").withPartitions(64));
        any.put("text", "s");
        any.put(42, "i");
        any.put(42L, "l");

        assertThat(any.get("text")).isEqualTo("s");
        assertThat(any.get(42)).isEqualTo("i");
        assertThat(any.get(42L)).isEqualTo("l");
    }
}
