package io.sluice.server.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleStateEvent;
import io.sluice.node.internal.NodeEngine;
import io.sluice.node.internal.NodeMetrics;
import io.sluice.node.internal.cluster.OutgoingPartitionFile;
import io.sluice.node.internal.cluster.PartitionFileWire;
import io.sluice.protocol.internal.ErrorKind;
import io.sluice.protocol.internal.Frames;
import io.sluice.protocol.internal.Op;
import io.sluice.protocol.internal.ReplicaCodec;
import io.sluice.protocol.internal.StreamCodec;
import io.sluice.protocol.internal.Wire;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Requests of one connection after its handshake: reads each frame's request id and op, hands the
 * work off the event loop (streamed batches to the node's apply threads, other operations to the op
 * pool, type metadata imported at once so that the requests behind it find it), and answers each
 * request when it completes, in any order (the client matches answers by request id). A frame that
 * does not follow the protocol is answered with an error and its connection is closed.
 *
 * <p>Backpressure ({@link ConnectionBackpressure}): the bytes of streamed requests not yet applied and of
 * answers not yet taken by the socket are counted, and the requests on the op pool; above either limit the
 * connection's socket is not read (frames already read wait) until both drop to half.
 */
final class RequestHandler extends ChannelInboundHandlerAdapter {

    private final NodeEngine node;
    private final Executor ops;
    private final long maxQueuedBytes;
    private final NodeOps handlers;
    private final PartitionGate gate;
    private final BooleanSupplier stopping;
    /** Set when the handler joins its connection's pipeline (after the handshake). */
    private ConnectionBackpressure backpressure;

    /** @param stopping true once the server stops taking requests (its connections are then no longer read) */
    RequestHandler(NodeEngine node, Executor ops, long maxQueuedBytes, PartitionGate gate, BooleanSupplier stopping) {
        this.node = node;
        this.stopping = stopping;
        this.ops = ops;
        this.maxQueuedBytes = maxQueuedBytes;
        this.gate = gate;
        this.handlers = new NodeOps(node, gate);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        backpressure = new ConnectionBackpressure(ctx.channel(), maxQueuedBytes, frame -> handle(ctx.channel(), frame),
                stopping);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        backpressure.onFrame((ByteBuf) msg);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        backpressure.discard();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        backpressure.discard();
    }

    /** Handles one request frame (on the event loop) and owns it: released here or once its batches are applied. */
    private void handle(Channel channel, ByteBuf frame) {
        long requestId = 0;
        boolean handedOver = false;
        try {
            Wire.need(frame, Wire.HEADER, "request header");
            requestId = frame.readLong();
            int code = frame.readUnsignedByte();
            Op op = Op.of(code);
            if (op == null) {
                throw new Wire.MalformedFrameException("unknown op " + code);
            }
            switch (op) {
                case STREAM -> {
                    stream(channel, requestId, frame);
                    handedOver = true;
                }
                case REPLICATE -> {
                    replicate(channel, requestId, frame);
                }
                case REPLICA_FOLLOW, REPLICA_SYNCED -> // quick, and never queued behind the op pool's writes
                        respond(channel, requestId, handlers.decode(op, frame), false);
                case PARTITION_FILE -> partitionFile(channel, requestId, frame);
                case PUT_TYPES -> // imported before the next frame is read: requests behind it find the types
                        respond(channel, requestId, handlers.putTypes(frame), false);
                default -> {
                    NodeOps.Call call = handlers.decode(op, frame);
                    long id = requestId;
                    boolean writes = op == Op.PUT || op == Op.REMOVE || op == Op.WRITE_ALL || op == Op.INVOKE_ALL
                            || op == Op.CREATE_CACHE || op == Op.DESTROY_INDEX
                            || op == Op.CREATE_INDEX;
                    backpressure.requestStarted();
                    try {
                        ops.execute(() -> {
                            try {
                                respond(channel, id, call, writes);
                            } finally {
                                backpressure.requestRan(); // after its answer is counted: no resume in between
                            }
                        });
                    } catch (RejectedExecutionException e) {
                        fail(channel, id, e);
                        backpressure.requestRan();
                    }
                }
            }
        } catch (Wire.MalformedFrameException | IndexOutOfBoundsException e) {
            node.metrics().error(NodeMetrics.Scope.CONNECTION, ErrorKind.MALFORMED_REQUEST);
            channel.writeAndFlush(Frames.error(channel.alloc(), requestId, ErrorKind.MALFORMED_REQUEST,
                    "malformed request: " + e.getMessage())).addListener(ChannelFutureListener.CLOSE);
        } catch (RuntimeException e) {
            // A well-framed request whose content is refused (a malformed key, unknown type metadata): it alone fails.
            fail(channel, requestId, e);
        } finally {
            if (!handedOver) {
                frame.release();
            }
        }
    }

    /** Hands a STREAM request to the apply threads; the frame stays retained until its batches are applied. */
    private void stream(Channel channel, long requestId, ByteBuf frame) {
        StreamCodec.Request request = StreamCodec.decodeRequest(frame);
        int size = frame.capacity();
        backpressure.queue(size);
        // On a cluster member each batch is admitted by its partition (NOT_OWNER for one the node does not serve),
        // and a cache the catalogue has but this node has not created yet is created first.
        gate.stream(request.toBatchRequest(), r -> {
            if (gate.clustered()) {
                gate.cache(node, r.cacheName());
            }
            return node.transport().sendReceived(node.id(), r);
        }, () -> gate.cache(node, request.cacheName()).config().writeSync())
                .whenComplete((outcomes, error) -> {
                    frame.release();
                    if (error != null) {
                        fail(channel, requestId, error);
                    } else {
                        answer(channel, requestId, out -> StreamCodec.encodeResponse(out, outcomes));
                    }
                    backpressure.release(size); // after the answer is counted: no resume in between
                });
    }

    /**
     * REPLICATE (a member backing partitions of the sender): applied in order on the sender's lane, answered with
     * the partitions refused once what was applied is durable per the WAL mode.
     */
    private void replicate(Channel channel, long requestId, ByteBuf frame) {
        ReplicaCodec.Frame records = ReplicaCodec.readFrame(frame);
        int size = frame.capacity();
        backpressure.queue(size);
        try {
            gate.replicate(records, refusals -> node.whenDurable(error -> {
                if (error == null) {
                    answer(channel, requestId, out -> ReplicaCodec.writeRefusals(out, refusals));
                } else {
                    fail(channel, requestId, error);
                }
                backpressure.release(size);
            }));
        } catch (RuntimeException e) {
            backpressure.release(size);
            throw e;
        }
    }

    /**
     * PARTITION_FILE (a member building a partition, on a connection of its own): the partition's file is written
     * on the op pool, then sent from the event loop ({@link PartitionFileSend}).
     */
    private void partitionFile(Channel channel, long requestId, ByteBuf frame) {
        PartitionFileWire.Request request = PartitionFileWire.Request.read(frame);
        backpressure.requestStarted();
        try {
            ops.execute(() -> {
                try {
                    OutgoingPartitionFile file;
                    try {
                        file = gate.partitionFile(request, String.valueOf(channel.remoteAddress()));
                    } catch (RuntimeException e) {
                        fail(channel, requestId, e);
                        return;
                    }
                    PartitionFileSend.start(channel, requestId, file);
                } finally {
                    backpressure.requestRan();
                }
            });
        } catch (RejectedExecutionException e) {
            fail(channel, requestId, e);
            backpressure.requestRan();
        }
    }

    /**
     * Runs a decoded call and answers it: its body, or the error it threw. A call that writes is answered
     * once its writes are durable per the WAL mode of a persistent node (at once otherwise); a read's answer is
     * made and counted before this returns.
     */
    private void respond(Channel channel, long requestId, NodeOps.Call call, boolean writes) {
        Consumer<ByteBuf> body;
        int[] replicated;
        try {
            body = call.run();
        } catch (Throwable t) {
            gate.takeReplicationWait();
            fail(channel, requestId, t);
            return;
        } finally {
            replicated = gate.takeReplicationWait();
        }
        if (!writes) {
            answer(channel, requestId, body);
            return;
        }
        if (replicated != null) {
            // FULL_SYNC: answered once the backups in sync have it too (the op thread is not held meanwhile).
            gate.whenReplicated(replicated, refused -> {
                if (refused != null) {
                    fail(channel, requestId, refused);
                } else {
                    answerWhenDurable(channel, requestId, body);
                }
            });
            return;
        }
        answerWhenDurable(channel, requestId, body);
    }

    /** Answers a write once it is durable per the WAL mode, if the node may still acknowledge writes then. */
    private void answerWhenDurable(Channel channel, long requestId, Consumer<ByteBuf> body) {
        node.whenDurable(error -> {
            if (error == null && !gate.leaseValid()) {
                fail(channel, requestId, new io.sluice.protocol.internal.NotOwnerException("this node may not"
                        + " acknowledge writes now: its ZooKeeper lease lapsed"));
            } else if (error == null) {
                answer(channel, requestId, body);
            } else {
                fail(channel, requestId, error);
            }
        });
    }

    /**
     * Sends a call's answer; a body that throws while it is written (a value that cannot be encoded, no memory for
     * the frame) is answered with its error instead, so that no request goes unanswered (the client would wait its
     * whole timeout).
     */
    private void answer(Channel channel, long requestId, Consumer<ByteBuf> body) {
        ByteBuf frame;
        try {
            frame = Frames.ok(channel.alloc(), requestId, body);
        } catch (RuntimeException | Error e) { // an Error too: out of direct memory for a large answer, say
            fail(channel, requestId, e);
            return;
        }
        backpressure.send(frame);
    }

    private void fail(Channel channel, long requestId, Throwable error) {
        Throwable t = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                ? error.getCause() : error;
        ErrorKind kind = ErrorKind.of(t);
        node.metrics().error(NodeMetrics.Scope.REQUEST, kind);
        backpressure.send(Frames.error(channel.alloc(), requestId, kind, ErrorKind.messageOf(t)));
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof IdleStateEvent) {
            ctx.close();
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ConnectionErrors.log(ctx, cause);
        if (!(cause instanceof java.io.IOException)) { // a connection lost is no error of the node
            node.metrics().error(NodeMetrics.Scope.CONNECTION, ConnectionErrors.kindOf(cause));
        }
        ctx.close();
    }
}
