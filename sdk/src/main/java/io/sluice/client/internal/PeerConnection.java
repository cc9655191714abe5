package io.sluice.client.internal;

import io.netty.buffer.ByteBuf;
import io.sluice.binary.internal.BinaryContext;
import io.sluice.protocol.internal.Frames;
import io.sluice.protocol.internal.Op;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A connection from one cluster member to another for the members' own requests (replication, issue 27): each
 * request is sent once, never retried (the caller decides: a replication stream that lost a request restarts),
 * over the client's connection, reopened when a request finds it lost. Requests sent from one thread, one at a
 * time or pipelined, reach the node in the order sent while the connection lasts. Thread-safe.
 */
public final class PeerConnection implements AutoCloseable {

    private final Nodes nodes;
    private final String nodeId;

    /**
     * Connects to the node at the settings' first address.
     *
     * @throws io.sluice.NodeUnreachableException if it cannot be reached
     * @throws io.sluice.SluiceException if it refuses the handshake (a wrong token)
     */
    public PeerConnection(ClientSettings settings) {
        Objects.requireNonNull(settings, "settings");
        this.nodes = new Nodes(settings, new BinaryContext());
        this.nodeId = nodes.anyNode();
    }

    /** The id the node gave in its handshake. */
    public String nodeId() {
        return nodeId;
    }

    /**
     * Sends a request once. Never throws: the future fails with the node's error (as the exception the client
     * throws for its kind), {@link io.sluice.NodeUnreachableException} or a lost connection.
     */
    public <T> CompletableFuture<T> send(Op op, Consumer<ByteBuf> body, Function<ByteBuf, T> decoder) {
        return nodes.callOnce(nodeId, c -> Frames.request(c.alloc(), op, body), decoder);
    }

    /** Waits for an answer as a client call does (its request timeout), throwing the node's error. */
    public <T> T await(CompletableFuture<T> answer) {
        return nodes.await(answer);
    }

    @Override
    public void close() {
        nodes.close();
    }
}
