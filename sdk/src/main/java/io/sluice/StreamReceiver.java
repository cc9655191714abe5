package io.sluice;

import java.util.Collection;
import java.util.Map;

/**
 * A receiver applies a batch of streamed entries on the node that owns their partition. The
 * built-in receivers are chosen through {@link Receivers}; a custom receiver is registered on the
 * node by name ({@code NodeConfig.builder().receiver("name", factory)}) and chosen with
 * {@link Receivers#named(String)} — clients never ship code.
 *
 * <p>All entries of one call belong to one partition and the call runs on that partition's
 * stripe thread, so no other batch of the partition runs at the same time. A receiver that
 * throws fails the whole batch: the streamer's future for it completes exceptionally with the
 * exception as its cause.
 *
 * @param <K> key type
 * @param <V> value type
 */
@FunctionalInterface
public interface StreamReceiver<K, V> {

    /**
     * Applies a batch.
     *
     * @param cache   the cache the batch is for
     * @param entries the batch's entries, in the order they were added; a {@code null} value is a
     *                removal ({@link DataStreamer#removeData(Object)})
     */
    void receive(Cache<K, V> cache, Collection<Map.Entry<K, V>> entries) throws Exception;
}
