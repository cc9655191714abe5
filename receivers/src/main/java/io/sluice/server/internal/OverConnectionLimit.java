package io.sluice.server.internal;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import io.sluice.protocol.internal.Frames;
import io.sluice.protocol.internal.Wire;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The end of the pipeline of a connection over {@code maxConnections}: as soon as it is open it gets a
 * handshake reply with status {@link Wire#HANDSHAKE_BUSY} naming the limit, and is closed once the reply
 * is written (on a TLS port after the TLS handshake, which the TLS handler waits for). Nothing the client
 * sends is read. One instance per refused connection.
 */
final class OverConnectionLimit extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(OverConnectionLimit.class);

    private final String nodeId;
    private final int maxConnections;

    OverConnectionLimit(String nodeId, int maxConnections) {
        this.nodeId = nodeId;
        this.maxConnections = maxConnections;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        LOG.warn("refused a connection from {}: {} connections are open (maxConnections)",
                ctx.channel().remoteAddress(), maxConnections);
        ctx.writeAndFlush(Frames.handshakeReply(ctx.alloc(), Wire.HANDSHAKE_BUSY, "it serves at most " + maxConnections
                + " connections (maxConnections) and all are in use", nodeId)).addListener(ChannelFutureListener.CLOSE);
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ReferenceCountUtil.release(msg);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("refused connection from {} failed: {}", ctx.channel().remoteAddress(),
                ConnectionErrors.describe(cause));
        ctx.close();
    }
}
