package io.sluice.server.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleStateEvent;
import io.sluice.node.internal.NodeMetrics;
import io.sluice.protocol.internal.ErrorKind;
import io.sluice.protocol.internal.Frames;
import io.sluice.protocol.internal.Wire;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * The first frame of a connection: magic, protocol version, client name, token. A version the node
 * does not speak, a wrong token or anything that is not a handshake gets a reply saying so and the
 * connection is closed; a good handshake is answered with the node's id and the connection moves on
 * to requests. Nothing else is served before it, and nothing the client sent before it is logged or
 * echoed: a refusal names the problem (the versions, a missing token, which field is short), never the
 * client's name or token, and after a refusal the connection's further frames are dropped unread.
 */
final class HandshakeHandler extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(HandshakeHandler.class);

    private final String nodeId;
    private final byte[] token;
    private final RequestHandler next;
    private final NodeMetrics metrics;
    /** Set once a refusal is on its way: frames that follow it are not read. */
    private boolean refused;

    HandshakeHandler(String nodeId, String token, RequestHandler next, NodeMetrics metrics) {
        this.nodeId = nodeId;
        this.metrics = metrics;
        this.token = token == null ? null : token.getBytes(StandardCharsets.UTF_8);
        this.next = next;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf frame = (ByteBuf) msg;
        try {
            if (refused) {
                return;
            }
            Frames.Handshake hs;
            try {
                hs = Frames.readHandshake(frame);
            } catch (Wire.MalformedFrameException | IndexOutOfBoundsException e) {
                refuse(ctx, Wire.HANDSHAKE_MALFORMED, "not a Sluice handshake: " + e.getMessage());
                return;
            }
            if (hs.version() != Wire.VERSION) {
                refuse(ctx, Wire.HANDSHAKE_VERSION_MISMATCH, "the client speaks protocol version " + hs.version()
                        + "; this node speaks version " + Wire.VERSION);
                return;
            }
            if (token != null && !MessageDigest.isEqual(token, hs.token().getBytes(StandardCharsets.UTF_8))) {
                refuse(ctx, Wire.HANDSHAKE_NOT_AUTHORIZED, "the client did not present this node's token");
                return;
            }
            ctx.writeAndFlush(Frames.handshakeReply(ctx.alloc(), Wire.HANDSHAKE_OK, "", nodeId));
            ctx.pipeline().replace(this, "requests", next);
            LOG.debug("client '{}' connected from {}", hs.clientName(), ctx.channel().remoteAddress());
        } finally {
            frame.release();
        }
    }

    private void refuse(ChannelHandlerContext ctx, int status, String message) {
        refused = true;
        ctx.channel().config().setAutoRead(false);
        metrics.error(NodeMetrics.Scope.CONNECTION, status == Wire.HANDSHAKE_MALFORMED ? ErrorKind.MALFORMED_REQUEST
                : ErrorKind.ILLEGAL_ARGUMENT);
        LOG.warn("refused a connection from {}: {}", ctx.channel().remoteAddress(), message);
        ctx.writeAndFlush(Frames.handshakeReply(ctx.alloc(), status, message, nodeId))
                .addListener(ChannelFutureListener.CLOSE);
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
            metrics.error(NodeMetrics.Scope.CONNECTION, ConnectionErrors.kindOf(cause));
        }
        ctx.close();
    }
}
