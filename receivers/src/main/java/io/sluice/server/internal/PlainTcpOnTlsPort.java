package io.sluice.server.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.ssl.SslHandler;
import io.sluice.node.internal.NodeMetrics;
import io.sluice.protocol.internal.ErrorKind;
import io.sluice.protocol.internal.Frames;
import io.sluice.protocol.internal.Wire;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * First on a TLS port's pipeline, ahead of the TLS handler: looks at the first five bytes of a
 * connection. A TLS record goes on to the TLS handler (this handler leaves the pipeline); anything else
 * is a client speaking plain TCP (a Sluice client without {@code ClientConfig.builder().tls(...)}), which
 * gets a plain handshake reply with status {@link Wire#HANDSHAKE_TLS_REQUIRED} and is closed. The bytes
 * received are dropped, never logged: a plain handshake carries the client's token, and the TLS
 * handler's own error for them (Netty's {@code NotSslRecordException}) would print them as hex.
 * One instance per connection; runs on its event loop.
 */
final class PlainTcpOnTlsPort extends ByteToMessageDecoder {

    private static final Logger LOG = LoggerFactory.getLogger(PlainTcpOnTlsPort.class);
    /** A TLS record header: content type, version, length. */
    private static final int RECORD_HEADER = 5;

    private final String nodeId;
    private final NodeMetrics metrics;
    /** Set once the refusal is on its way: bytes that still arrive are dropped, and nothing is logged again. */
    private boolean refused;

    PlainTcpOnTlsPort(String nodeId, NodeMetrics metrics) {
        this.nodeId = nodeId;
        this.metrics = metrics;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (refused) {
            in.skipBytes(in.readableBytes());
            return;
        }
        if (in.readableBytes() < RECORD_HEADER) {
            return;
        }
        if (SslHandler.isEncrypted(in, false)) {
            ctx.pipeline().remove(this); // hands the bytes read so far on to the TLS handler
            return;
        }
        refused = true;
        in.skipBytes(in.readableBytes());
        ctx.channel().config().setAutoRead(false);
        metrics.error(NodeMetrics.Scope.CONNECTION, ErrorKind.MALFORMED_REQUEST);
        LOG.warn("refused a connection from {}: the client spoke plain TCP to this TLS port (a Sluice client needs"
                + " ClientConfig.builder().tls(...)); the bytes it sent are not logged", ctx.channel().remoteAddress());
        // Written from here, ahead of the TLS handler, so the reply goes out in plain TCP as the client speaks.
        ctx.writeAndFlush(Frames.handshakeReply(ctx.alloc(), Wire.HANDSHAKE_TLS_REQUIRED,
                "this node accepts TLS connections only", nodeId)).addListener(ChannelFutureListener.CLOSE);
    }
}
