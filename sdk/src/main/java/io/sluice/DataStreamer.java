package io.sluice;

import io.sluice.binary.BinaryObjectBuilder;

import java.util.Collection;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Loads entries into one cache in bulk. Entries are encoded as they are added into a buffer per
 * partition; a buffer is sent to the partition's owner node when it reaches
 * {@link StreamerOptions#perPartitionBufferSize()} entries or
 * {@link StreamerOptions#perPartitionBufferBytes()} bytes, when
 * {@link StreamerOptions#autoFlushInterval()} passes, on {@link #flush()}, {@link #tryFlush()}
 * and {@link #close()}.
 *
 * <p>Thread-safe: many threads may add to one streamer. No entry is dropped silently: the future
 * of every batch completes, normally when all its entries were applied, exceptionally with the
 * cause otherwise; {@link #flush()} and {@link #close()} throw if any batch failed.
 *
 * @param <K> key type
 * @param <V> value type
 */
public interface DataStreamer<K, V> extends AutoCloseable {

    /**
     * Adds an entry. The entry is encoded before this method returns, so the caller may reuse
     * the value (a binary-object builder, say) at once.
     *
     * <p>Blocks while the streamer holds {@link StreamerOptions#bufferMemory()} bytes, at most
     * {@link StreamerOptions#maxBlock()}.
     *
     * @return the future of the batch the entry joined; entries of one batch share it
     * @throws NullPointerException if key or value is null
     * @throws IllegalArgumentException if the encoded entry is larger than
     *         {@link StreamerOptions#maxEntrySize()}
     * @throws StreamerTimeoutException if buffer memory did not free up within maxBlock
     * @throws IllegalStateException if the streamer is closed
     */
    CompletableFuture<Void> addData(K key, V value);

    /**
     * Adds an entry whose value is the binary object the builder holds, written by the builder straight into
     * the streamer's buffer: the entry's bytes are those {@code addData(key, value.build())} adds, but no
     * {@link io.sluice.binary.BinaryObject} and no array are made for it and the value is copied once.
     *
     * <p>The builder's fields as they are at the call are encoded before this method returns, and the builder is
     * then empty, as after {@link BinaryObjectBuilder#build()}: set the next entry's fields in it at once (it
     * keeps its fast path for the next object of the same layout). It is emptied also when this method throws,
     * except for the two refusals made before it is read: a null {@code value}, and a builder not made by this
     * streamer's {@link Sluice}. The value is stored, read back and applied by every receiver exactly as the
     * built object would be, whatever {@code V} is.
     *
     * <p>Otherwise the same contract as {@link #addData(Object, Object)}: the same future, shared by the
     * entries of the batch; the same blocking for buffer memory; the same errors.
     *
     * @param value a builder from {@link io.sluice.Sluice#binary()} of the Sluice (embedded node or client) that
     *              opened this streamer; not thread-safe, so one builder per adding thread
     * @return the future of the batch the entry joined; entries of one batch share it
     * @throws NullPointerException if key or value is null
     * @throws IllegalArgumentException if the builder was not made by {@code binary()} of the Sluice that opened
     *         this streamer (another Sluice's, or another implementation: the builder is left as it was, and
     *         {@code addData(key, value.build())} adds its object), or if the encoded entry is larger than
     *         {@link StreamerOptions#maxEntrySize()}
     * @throws StreamerTimeoutException if buffer memory did not free up within maxBlock
     * @throws IllegalStateException if the streamer is closed
     */
    CompletableFuture<Void> addFromBuilder(K key, BinaryObjectBuilder value);

    /** Adds every entry of the map; same contract as {@link #addData(Object, Object)}. */
    CompletableFuture<Void> addData(Map<? extends K, ? extends V> entries);

    /** Adds every entry of the collection; same contract as {@link #addData(Object, Object)}. */
    CompletableFuture<Void> addData(Collection<? extends Map.Entry<? extends K, ? extends V>> entries);

    /**
     * Adds the removal of a key; receivers that allow it remove the key when the batch is applied.
     *
     * @throws NullPointerException if key is null
     */
    CompletableFuture<Void> removeData(K key);

    /**
     * Sends every buffered entry and waits until every entry added before this call is applied or
     * has failed, at most {@link StreamerOptions#timeout()}.
     *
     * @throws StreamerException if any batch failed since the previous flush, with the cause and the
     *         number of entries that failed
     * @throws StreamerTimeoutException if the batches did not complete within the timeout
     * @throws IllegalStateException if the streamer is closed (or being closed): {@link #close()} has
     *         flushed and reported everything itself, and nothing added after it was accepted
     */
    void flush();

    /**
     * Sends every buffered entry without waiting for the batches to complete.
     *
     * @throws IllegalStateException if the streamer is closed (or being closed)
     */
    void tryFlush();

    /** Flushes, waits, and closes; {@code close(false)}. */
    @Override
    void close();

    /**
     * Closes the streamer. With {@code cancel == false} it flushes and waits as {@link #flush()}
     * does; with {@code cancel == true} it drops what is buffered and completes the future of
     * every batch not yet applied exceptionally with a {@link java.util.concurrent.CancellationException}.
     * Calling it again has no effect.
     *
     * @throws StreamerException if a batch failed (cancel == false)
     */
    void close(boolean cancel);

    /** The options this streamer was created with. */
    StreamerOptions options();

    /** Live counters of this streamer. */
    StreamerMetrics metrics();
}
