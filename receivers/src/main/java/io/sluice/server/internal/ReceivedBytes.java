package io.sluice.server.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.sluice.node.internal.NodeMetrics;

/**
 * Counts the bytes read from client connections (after TLS, before framing) in the node's metrics:
 * one increment per socket read, whatever the read holds. Passes every read on untouched. Shared by
 * all connections of a server.
 */
@ChannelHandler.Sharable
final class ReceivedBytes extends ChannelInboundHandlerAdapter {

    private final NodeMetrics metrics;

    ReceivedBytes(NodeMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ByteBuf buf) {
            metrics.received(buf.readableBytes());
        }
        ctx.fireChannelRead(msg);
    }
}
