package io.sluice.client.internal;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;

import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;

/** The client's TLS: one context for every connection, hostname verification on. */
final class ClientTls {

    private final SslContext context;

    private ClientTls(SslContext context) {
        this.context = context;
    }

    /** The config's TLS, or null if TLS is off. @throws IllegalArgumentException if the trust file is unusable */
    static ClientTls of(ClientSettings config) {
        if (!config.tls()) {
            return null;
        }
        try {
            SslContextBuilder builder = SslContextBuilder.forClient();
            if (config.tlsTrustedCertificates() != null) {
                builder.trustManager(config.tlsTrustedCertificates().toFile());
            }
            return new ClientTls(builder.build());
        } catch (SSLException | RuntimeException e) {
            throw new IllegalArgumentException("cannot set up TLS with the trusted certificates "
                    + config.tlsTrustedCertificates() + ": " + e.getMessage() + " (ClientConfig.tls)", e);
        }
    }

    /** A handler for a connection to that host, checking that the node's certificate names it. */
    SslHandler newHandler(ByteBufAllocator alloc, String host, int port) {
        SslHandler handler = context.newHandler(alloc, host, port);
        SSLParameters parameters = handler.engine().getSSLParameters();
        parameters.setEndpointIdentificationAlgorithm("HTTPS");
        handler.engine().setSSLParameters(parameters);
        return handler;
    }
}
