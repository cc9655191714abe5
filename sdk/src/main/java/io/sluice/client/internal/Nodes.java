package io.sluice.client.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.sluice.NodeUnreachableException;
import io.sluice.SluiceException;
import io.sluice.binary.internal.BinaryContext;
import io.sluice.protocol.internal.Frames;
import io.sluice.protocol.internal.Op;
import io.sluice.protocol.internal.Wire;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The client's nodes: one connection per node, opened at start, reopened on demand after it was lost;
 * the client's type metadata sent ahead of any request that may carry objects of new types; the
 * node's fetched when an answer holds types this client does not know. Thread-safe.
 */
final class Nodes implements AutoCloseable {

    private final ClientSettings config;
    private final BinaryContext binary;
    private final EventLoopGroup group;
    /** Null when TLS is off. */
    private final ClientTls tls;
    /** Node id to its address and current connection. */
    private final Map<String, Node> byId = new ConcurrentHashMap<>();
    private final List<String> ids;
    private final Retries retries;

    Nodes(ClientSettings config, BinaryContext binary) {
        this.config = config;
        this.retries = new Retries(config);
        this.binary = binary;
        this.tls = ClientTls.of(config);
        this.group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        List<String> ids = new ArrayList<>();
        NodeUnreachableException unreachable = null;
        try {
            for (String a : config.addresses()) {
                Address address = Address.parse(a);
                try {
                    NodeConnection c = connect(address);
                    if (byId.putIfAbsent(c.nodeId(), new Node(c.nodeId(), address, c)) == null) {
                        ids.add(c.nodeId());
                    } else {
                        c.close(); // two addresses of one node
                    }
                } catch (NodeUnreachableException e) {
                    if (unreachable == null) {
                        unreachable = e;
                    } else {
                        unreachable.addSuppressed(e);
                    }
                }
            }
            if (ids.isEmpty()) {
                throw unreachable != null ? unreachable
                        : new NodeUnreachableException("no node at " + config.addresses() + " could be reached");
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
        this.ids = List.copyOf(ids);
    }

    /**
     * Opens the first connection to an address, retried as a request is ({@link Retriable}: refused, lost,
     * the node at its connection limit), so the error of the last attempt names the attempts and the causes.
     */
    private NodeConnection connect(Address address) {
        return await(retries.call(retries.breaker("connect to " + address), "at " + address, () -> {
            try {
                return CompletableFuture.completedFuture(NodeConnection.open(address, config, group, tls));
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
        }));
    }

    /** The ids of the nodes, in the order of the configured addresses. */
    List<String> ids() {
        return ids;
    }

    String anyNode() {
        return ids.get(0);
    }

    /**
     * Makes a cluster member known by the address the map gives for it; its connection opens when a request
     * first goes there. A node already known keeps its address and connection.
     */
    void addMember(String nodeId, Address address) {
        if (!byId.containsKey(nodeId)) {
            byId.computeIfAbsent(nodeId, id -> new Node(id, address, null));
        }
    }

    /** True if the node's connection is open now (a request to it opens none). */
    boolean isConnected(String nodeId) {
        Node node = byId.get(nodeId);
        NodeConnection c = node == null ? null : node.current;
        return c != null && c.isOpen();
    }

    /** True if the calling thread is the client's event loop (which must not block, nor open connections). */
    boolean onEventLoop() {
        for (io.netty.util.concurrent.EventExecutor e : group) {
            if (e.inEventLoop()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Sends a request once, without retrying (the caller retries elsewhere: asking for the map).
     * Never throws; the future fails as {@link #call}'s attempts do.
     */
    <T> CompletableFuture<T> callOnce(String nodeId, Function<NodeConnection, ByteBuf> frame,
                                      Function<ByteBuf, T> decoder) {
        Node node = byId.get(nodeId);
        if (node == null) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("node '" + nodeId
                    + "' is not one of this client's nodes " + ids));
        }
        return attempt(node, false, frame, decoder, null);
    }

    /**
     * The open connection to a node, reconnecting if it was lost.
     *
     * @throws NodeUnreachableException if it cannot be reached
     * @throws IllegalArgumentException if the client does not know the node
     */
    NodeConnection connection(String nodeId) {
        Node node = byId.get(nodeId);
        if (node == null) {
            throw new IllegalArgumentException("node '" + nodeId + "' is not one of this client's nodes " + ids);
        }
        return node.connection();
    }

    /**
     * Sends a request to a node and returns its answer's future (never throws: an unreachable node
     * fails the future). Type metadata this connection has not seen goes first when {@code withTypes}.
     * A request that fails in a retriable way ({@link Retriable}) is sent again, on a new connection if
     * the old one was lost, with backoff, through the node's circuit breaker ({@link Retries}); so a
     * request may reach the node more than once (at-least-once, see {@code docs/protocol.md}).
     *
     * @param frame makes the request's frame for a connection; called once per attempt
     */
    <T> CompletableFuture<T> call(String nodeId, boolean withTypes, Function<NodeConnection, ByteBuf> frame,
                                  Function<ByteBuf, T> decoder, String cacheName) {
        Node node = byId.get(nodeId);
        if (node == null) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("node '" + nodeId
                    + "' is not one of this client's nodes " + ids));
        }
        return retries.call(node.breaker, "'" + nodeId + "' at " + node.address,
                () -> attempt(node, withTypes, frame, decoder, cacheName));
    }

    private <T> CompletableFuture<T> attempt(Node node, boolean withTypes, Function<NodeConnection, ByteBuf> frame,
                                             Function<ByteBuf, T> decoder, String cacheName) {
        try {
            NodeConnection c = node.connection();
            if (withTypes) {
                sendTypes(c);
            }
            return c.call(frame.apply(c), decoder, cacheName);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Sends the client's type metadata on the connection if it changed since it was last sent there. */
    private void sendTypes(NodeConnection c) {
        long version = binary.typesVersion();
        if (c.typesSent == version) {
            return;
        }
        byte[] types = binary.exportTypes();
        // Written before the caller's request: the node imports it before reading the next frame.
        c.call(Frames.request(c.alloc(), Op.PUT_TYPES, out -> Wire.writeBlob(out, types, 0, types.length)),
                body -> null, null);
        c.typesSent = version;
    }

    /** Fetches the node's type metadata into the client's registry (an answer held types unknown here). */
    void fetchTypes(String nodeId) {
        byte[] types = await(call(nodeId, false, c -> Frames.request(c.alloc(), Op.GET_TYPES, out -> { }),
                body -> Wire.readBlob(body, "type metadata"), null));
        binary.importTypes(types);
    }

    /**
     * Waits for a request's answer: the node's error as the exception the embedded node would throw,
     * or {@link NodeUnreachableException}.
     */
    <T> T await(CompletableFuture<T> future) {
        try {
            // Retries start up to requestTimeout after the first attempt, and the last may take requestTimeout.
            return future.get(2 * config.requestTimeout().toMillis() + ClientSettings.MAX_BACKOFF.toMillis() + 1_000,
                    TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw unwrap(e.getCause());
        } catch (java.util.concurrent.TimeoutException e) {
            throw new NodeUnreachableException("no answer within " + config.requestTimeout()
                    + " (ClientConfig.requestTimeout)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SluiceException("interrupted while waiting for the node", e);
        }
    }

    static RuntimeException unwrap(Throwable t) {
        if (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        if (t instanceof RuntimeException e) {
            return e;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new SluiceException(t.toString(), t);
    }

    @Override
    public void close() {
        for (Node node : byId.values()) {
            node.close();
        }
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** A node's address, its connection (replaced when lost; null until first used) and its circuit breaker. */
    private final class Node {
        private final Address address;
        private final io.github.resilience4j.circuitbreaker.CircuitBreaker breaker;
        private volatile NodeConnection current;
        private volatile boolean closed;

        Node(String nodeId, Address address, NodeConnection current) {
            this.address = address;
            this.current = current;
            this.breaker = retries.breaker(nodeId);
        }

        NodeConnection connection() {
            NodeConnection c = current;
            if (c != null && c.isOpen()) {
                return c;
            }
            if (closed) {
                throw new IllegalStateException("the client is closed");
            }
            synchronized (this) {
                if (closed) {
                    throw new IllegalStateException("the client is closed");
                }
                c = current;
                if (c == null || !c.isOpen()) {
                    c = NodeConnection.open(address, config, group, tls);
                    current = c;
                }
                return c;
            }
        }

        synchronized void close() {
            closed = true;
            if (current != null) {
                current.close();
            }
        }
    }
}
