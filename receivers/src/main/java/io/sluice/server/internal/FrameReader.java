package io.sluice.server.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.TooLongFrameException;
import io.sluice.protocol.internal.Wire;

/**
 * Cuts a connection's bytes into frames ({@code int32} length L, then L bytes), each read into a
 * buffer of its own taken from the server's {@link FramePool}, and passes each whole frame on (its
 * length prefix removed). A frame stays retained while its batches wait for the apply threads, so it must not
 * share memory with the bytes read after it: a cumulating decoder (Netty's
 * {@code LengthFieldBasedFrameDecoder}) would then copy its whole buffer into a new one on every read
 * while a frame is out, and the received bytes would be garbage. Here each received byte is copied
 * once, into its frame's pooled buffer, and the socket's read buffer is released at once.
 *
 * <p>Limits: a length below 1 or above the maximum closes the connection (a
 * {@link CorruptedFrameException} or {@link TooLongFrameException} goes down the pipeline) before any
 * byte of the frame is taken; a frame longer than the pool's largest array ({@link FramePool#MAX_ARRAY})
 * gets its buffer grown as its bytes arrive rather than all at once, so a peer that only claims a long
 * frame holds little memory.
 * One instance per connection; runs on the connection's event loop.
 */
final class FrameReader extends ChannelInboundHandlerAdapter {

    /** The first two bytes of a TLS handshake record: content type 22, major version 3. */
    private static final int TLS_HANDSHAKE_RECORD = 0x1603;

    private final FramePool pool;
    private final ByteBufAllocator alloc;
    private final int maxFrameSize;
    /** Bytes of the current frame's length prefix read so far (0-4), and their value. */
    private int prefixRead;
    private int length;
    /** The frame being filled, or null between frames. */
    private ByteBuf frame;
    private boolean failed;

    FrameReader(FramePool pool, ByteBufAllocator alloc, int maxFrameSize) {
        this.pool = pool;
        this.alloc = alloc;
        this.maxFrameSize = maxFrameSize;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf in)) {
            ctx.fireChannelRead(msg);
            return;
        }
        try {
            while (in.isReadable() && !failed) {
                if (frame == null && !readPrefix(ctx, in)) {
                    return;
                }
                int n = Math.min(in.readableBytes(), length - frame.writerIndex());
                frame.writeBytes(in, n);
                if (frame.writerIndex() == length) {
                    ByteBuf whole = frame;
                    frame = null;
                    prefixRead = 0;
                    length = 0;
                    ctx.fireChannelRead(whole);
                }
            }
        } finally {
            in.release();
        }
    }

    /** Reads the length prefix (it may arrive in pieces); true once the frame's buffer is taken. */
    private boolean readPrefix(ChannelHandlerContext ctx, ByteBuf in) {
        while (prefixRead < Wire.LENGTH_FIELD && in.isReadable()) {
            length = (length << 8) | in.readUnsignedByte();
            prefixRead++;
        }
        if (prefixRead < Wire.LENGTH_FIELD) {
            return false;
        }
        if (length < 1 || length > maxFrameSize) {
            fail(ctx, length < 1 ? new CorruptedFrameException(lengthProblem(ctx, "is below 1"))
                    : new TooLongFrameException(lengthProblem(ctx, "is longer than the node's maximum of "
                    + maxFrameSize + " (maxFrameSize)")));
            return false;
        }
        frame = pool.take(length);
        if (frame == null) { // longer than pooled frames: grown as its bytes arrive, up to the length it claims
            frame = alloc.heapBuffer(FramePool.MAX_ARRAY, length);
        }
        return true;
    }

    /**
     * Says what is wrong with a frame's length. Before the handshake succeeded the length is not named:
     * its four bytes may be any four the client sent (a token, if the client's framing is off); a first
     * frame that starts as a TLS record does is named as a TLS client on a plain TCP port.
     */
    private String lengthProblem(ChannelHandlerContext ctx, String problem) {
        if (ctx.pipeline().get(HandshakeHandler.class) == null) {
            return "a frame length of " + length + " " + problem;
        }
        String tls = (length >>> 16) == TLS_HANDSHAKE_RECORD
                ? "; it starts as a TLS record does: a client spoke TLS to this plain TCP port" : "";
        return "the length of a frame before the handshake " + problem + tls;
    }

    private void fail(ChannelHandlerContext ctx, Exception cause) {
        failed = true; // what follows on this connection is not read
        ctx.fireExceptionCaught(cause);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        releasePartial();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        releasePartial();
    }

    private void releasePartial() {
        if (frame != null) {
            frame.release();
            frame = null;
        }
    }
}
