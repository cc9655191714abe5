package io.sluice.client.internal;

import io.sluice.binary.internal.BinaryContext;
import io.sluice.protocol.internal.Frames;
import io.sluice.protocol.internal.Op;
import io.sluice.protocol.internal.Wire;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * A connection to one node for a node taking a partition over: reads a partition's entries page by page with
 * PARTITION_SCAN (op 18: SCAN's body and answer, served whether or not that node owns the partition). The client's
 * connection, retries and circuit breaker ({@link Nodes}), with no type metadata sent: entries come back as the
 * node stores them (encoded bytes) and are stored as they are. Thread-safe.
 */
public final class PartitionScanConnection implements AutoCloseable {

    /** One page of a partition's entries: keys and values alternating, in key order, and whether more follow. */
    public record Page(List<byte[]> keysAndValues, boolean more) {

        /** Entries in the page. */
        public int entries() {
            return keysAndValues.size() / 2;
        }
    }

    private final Nodes nodes;
    private final String nodeId;

    /**
     * Connects to the node at the settings' first address.
     *
     * @throws io.sluice.NodeUnreachableException if it cannot be reached
     * @throws io.sluice.SluiceException if it refuses the handshake (a wrong token)
     */
    public PartitionScanConnection(ClientSettings settings) {
        Objects.requireNonNull(settings, "settings");
        this.nodes = new Nodes(settings, new BinaryContext());
        this.nodeId = nodes.anyNode();
    }

    /** The id the node gave in its handshake. */
    public String nodeId() {
        return nodeId;
    }

    /** A page asked for and not yet read: the next page may be asked for meanwhile (pipelined). */
    @FunctionalInterface
    public interface PendingPage {
        /**
         * Waits for the page.
         *
         * @throws io.sluice.CacheNotFoundException if the node has no such cache
         * @throws io.sluice.NodeUnreachableException if the node cannot be reached within the request timeout
         */
        Page get();
    }

    /**
     * The page of the cache's partition after the key {@code after} (exclusive; null for the first page), at most
     * {@code max} entries (the node caps it).
     *
     * @throws io.sluice.CacheNotFoundException if the node has no such cache
     * @throws io.sluice.NodeUnreachableException if the node cannot be reached within the request timeout
     */
    public Page page(String cache, int partition, byte[] after, int max) {
        return request(cache, partition, after, max).get();
    }

    /** Asks for a page as {@link #page} does, without waiting for it. */
    public PendingPage request(String cache, int partition, byte[] after, int max) {
        CompletableFuture<Page> answer = nodes.call(nodeId, false, c -> Frames.request(c.alloc(), Op.PARTITION_SCAN,
                out -> {
                    Wire.writeString(out, cache);
                    out.writeInt(partition);
                    out.writeByte(after == null ? 0 : 1);
                    if (after != null) {
                        Wire.writeBlob(out, after, 0, after.length);
                    }
                    out.writeInt(max);
                }), body -> {
                    int n = Wire.readCount(body, 8, "entry");
                    List<byte[]> entries = new ArrayList<>(2 * n);
                    for (int i = 0; i < 2 * n; i++) {
                        entries.add(Wire.readBlob(body, "scanned bytes"));
                    }
                    return new Page(entries, Wire.readByte(body, "more") != 0);
                }, cache);
        return () -> nodes.await(answer);
    }

    @Override
    public void close() {
        nodes.close();
    }
}
