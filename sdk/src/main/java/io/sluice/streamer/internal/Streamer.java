package io.sluice.streamer.internal;

import io.sluice.DataStreamer;
import io.sluice.StreamerMetrics;
import io.sluice.StreamerOptions;
import io.sluice.binary.internal.ValueCodec;
import io.sluice.protocol.StreamerTransport;

import java.util.Collection;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The {@link DataStreamer} of both the embedded node and the remote client.
 *
 * <p>STUB: the streamer issue fills this in; the constructor is the contract.
 */
public final class Streamer<K, V> implements DataStreamer<K, V> {

    /**
     * @param cacheName the cache (it must exist: the transport is asked for its partitions)
     * @param options   the options
     * @param transport how batches reach nodes
     * @param codec     encodes keys and values
     * @param onClose   run once when the streamer has closed (the owner forgets it)
     * @throws io.sluice.CacheNotFoundException if the cache does not exist
     */
    public Streamer(String cacheName, StreamerOptions options, StreamerTransport transport, ValueCodec codec,
                    Runnable onClose) {
        throw new UnsupportedOperationException("the streamer is not implemented yet");
    }

    @Override
    public CompletableFuture<Void> addData(K key, V value) {
        throw new UnsupportedOperationException();
    }

    @Override
    public CompletableFuture<Void> addData(Map<? extends K, ? extends V> entries) {
        throw new UnsupportedOperationException();
    }

    @Override
    public CompletableFuture<Void> addData(Collection<? extends Map.Entry<? extends K, ? extends V>> entries) {
        throw new UnsupportedOperationException();
    }

    @Override
    public CompletableFuture<Void> removeData(K key) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void flush() {
        throw new UnsupportedOperationException();
    }

    @Override
    public void tryFlush() {
        throw new UnsupportedOperationException();
    }

    @Override
    public void close() {
        throw new UnsupportedOperationException();
    }

    @Override
    public void close(boolean cancel) {
        throw new UnsupportedOperationException();
    }

    @Override
    public StreamerOptions options() {
        throw new UnsupportedOperationException();
    }

    @Override
    public StreamerMetrics metrics() {
        throw new UnsupportedOperationException();
    }
}
