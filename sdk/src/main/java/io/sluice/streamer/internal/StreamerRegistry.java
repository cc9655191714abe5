package io.sluice.streamer.internal;

import io.sluice.StreamerOptions;
import io.sluice.binary.internal.ValueCodec;
import io.sluice.protocol.internal.StreamerTransport;

import java.util.ArrayList;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The streamers one owner (an embedded node, a remote client) has open, and closing them all when the owner
 * closes. Every streamer shares the owner's {@link BatchArrays}.
 *
 * <p>A streamer opened while {@link #closeAll} runs is never leaked: {@link #open} adds it and then looks at the
 * closing flag, {@code closeAll} sets the flag and then lists the streamers; whichever order the two threads run
 * in, either {@code closeAll} sees the streamer and closes it, or {@code open} sees the flag, cancels the streamer
 * and throws. Thread-safe.
 */
public final class StreamerRegistry {

    private final Set<Streamer<?, ?>> streamers = ConcurrentHashMap.newKeySet();
    /** Batch arrays shared by this owner's streamers: a new streamer starts with the arrays earlier ones left. */
    private final BatchArrays batchArrays = BatchArrays.shared();
    private final StreamerTransport transport;
    private final ValueCodec codec;
    /** The owner as an error message names it, e.g. "node 'embedded-1'" or "the client". */
    private final String owner;
    private volatile boolean closing;

    /**
     * @param transport how the streamers' batches reach nodes
     * @param codec     encodes keys and values
     * @param owner     the owner as an error names it ("the client", "node 'x'")
     */
    public StreamerRegistry(StreamerTransport transport, ValueCodec codec, String owner) {
        this.transport = Objects.requireNonNull(transport, "transport");
        this.codec = Objects.requireNonNull(codec, "codec");
        this.owner = Objects.requireNonNull(owner, "owner");
    }

    /**
     * Opens a streamer into the cache; it leaves the registry when it closes.
     *
     * @throws IllegalStateException naming the owner, if {@link #closeAll} has begun (also when it begins while
     *                               this runs: the streamer is then cancelled before this throws)
     * @throws io.sluice.CacheNotFoundException if the cache does not exist
     */
    public <K, V> Streamer<K, V> open(String cacheName, StreamerOptions options) {
        if (closing) {
            throw closed();
        }
        // The streamer forgets itself when it closes; the reference is set before anything can close it.
        AtomicReference<Streamer<?, ?>> self = new AtomicReference<>();
        Streamer<K, V> streamer = new Streamer<>(cacheName, options, transport, codec,
                () -> streamers.remove(self.get()), batchArrays);
        self.set(streamer);
        streamers.add(streamer);
        if (closing) {
            // Raced with closeAll(), which may have listed the streamers before this one was added.
            streamer.close(true);
            throw closed();
        }
        return streamer;
    }

    /** Streamers open now. */
    public int size() {
        return streamers.size();
    }

    /**
     * Refuses new streamers from now on and closes (flushing) every open one. Each is closed even if an
     * earlier one's close failed.
     *
     * @return the first failure, the later ones suppressed in it; null if every streamer closed cleanly
     */
    public RuntimeException closeAll() {
        closing = true;
        RuntimeException failure = null;
        for (Streamer<?, ?> streamer : new ArrayList<>(streamers)) {
            try {
                streamer.close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        return failure;
    }

    private IllegalStateException closed() {
        return new IllegalStateException(owner + " is closing; no new streamers");
    }
}
