package io.sluice.client.internal;

import io.sluice.Cache;
import io.sluice.IndexQuery;
import io.sluice.protocol.internal.Op;

import java.util.Map;
import java.util.stream.Stream;

/**
 * A remote cache's index operations ({@link Cache#query}, {@link Cache#createIndex}, {@link Cache#destroyIndex}),
 * done by its {@link RemoteIndexes}: kept apart from {@link RemoteCache}'s key-value operations.
 */
interface RemoteIndexed<K, V> extends Cache<K, V> {

    /** The cache's index operations, decoding as the cache does (binary objects kept or not). */
    RemoteIndexes indexes();

    @Override
    @SuppressWarnings("unchecked")
    default Stream<Map.Entry<K, V>> query(IndexQuery query) {
        return indexes().query(query).map(e -> (Map.Entry<K, V>) e);
    }

    @Override
    default boolean createIndex(String... fields) {
        return indexes().changeIndex(Op.CREATE_INDEX, fields);
    }

    @Override
    default boolean destroyIndex(String... fields) {
        return indexes().changeIndex(Op.DESTROY_INDEX, fields);
    }
}
