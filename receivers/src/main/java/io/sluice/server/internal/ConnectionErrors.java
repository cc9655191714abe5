package io.sluice.server.internal;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.ssl.NotSslRecordException;
import io.sluice.protocol.internal.ErrorKind;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.net.ssl.SSLException;
import java.io.IOException;

/**
 * What the node logs when a failure closes a client connection. A client's bytes never reach the log:
 * only messages the node's own code wrote ({@link FrameReader}'s, which name lengths and limits), the
 * JDK's TLS and socket messages (which name a protocol step, not the data) and otherwise the exception's
 * class. Netty's {@link NotSslRecordException} prints the bytes it received as hex, and those are a
 * handshake with its token: it is reported as a plain-TCP client on a TLS port, without its message.
 */
final class ConnectionErrors {

    private static final Logger LOG = LoggerFactory.getLogger(ConnectionErrors.class);

    private ConnectionErrors() {
    }

    /** Logs, once and briefly, what closed a connection. */
    static void log(ChannelHandlerContext ctx, Throwable cause) {
        LOG.warn("closed the connection from {}: {}", ctx.channel().remoteAddress(), describe(cause));
    }

    /** The cause in words that carry none of the bytes the client sent. */
    static String describe(Throwable cause) {
        Throwable t = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
        if (t instanceof NotSslRecordException) {
            return "the client spoke plain TCP to this TLS port (a Sluice client needs ClientConfig.builder().tls(...))";
        }
        if (t instanceof TooLongFrameException || t instanceof CorruptedFrameException || t instanceof SSLException
                || t instanceof IOException) {
            return t.getClass().getSimpleName() + ": " + t.getMessage();
        }
        return t.getClass().getName() + " (its message is not logged: it may hold bytes the client sent)";
    }

    /** The kind of what closed a connection: a frame over the limit or a broken one did not follow the protocol. */
    static ErrorKind kindOf(Throwable cause) {
        return cause instanceof DecoderException ? ErrorKind.MALFORMED_REQUEST : ErrorKind.of(cause);
    }
}
