package io.sluice.client.internal;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The settings the remote client runs with, as the public {@code ClientConfig} holds and validates them: the
 * client's internals read this record, never that class, so the public package uses its internals and not the
 * other way round (no package cycle). Each accessor is the {@code ClientConfig} accessor of the same name.
 *
 * @param addresses                     the nodes' addresses, {@code host:port}
 * @param clientName                    the name given in the handshake
 * @param token                         the token presented in the handshake, or null
 * @param connectTimeout                bound of connecting to a node, handshake included
 * @param requestTimeout                bound of one request
 * @param maxFrameSize                  the largest frame sent or accepted
 * @param tls                           whether connections use TLS
 * @param tlsTrustedCertificates        the PEM file of trusted certificates, or null for the JVM's trust store
 * @param retryAttempts                 attempts of a request failing in a retriable way, the first included
 * @param retryInitialBackoff           wait before the first retry, doubling up to {@link #MAX_BACKOFF}
 * @param circuitBreakerFailureRate     failure rate, in percent, that opens a node's circuit breaker
 * @param circuitBreakerWaitInOpenState how long an open circuit breaker fails calls fast
 */
public record ClientSettings(List<String> addresses, String clientName, String token, Duration connectTimeout,
                             Duration requestTimeout, int maxFrameSize, boolean tls, Path tlsTrustedCertificates,
                             int retryAttempts, Duration retryInitialBackoff, int circuitBreakerFailureRate,
                             Duration circuitBreakerWaitInOpenState) {

    /** The longest wait between two attempts of a request: the backoff doubles up to this. */
    public static final Duration MAX_BACKOFF = Duration.ofSeconds(5);

    public ClientSettings {
        addresses = List.copyOf(addresses);
    }

    /** Without the token's value, which stays out of logs and error messages. */
    @Override
    public String toString() {
        return "ClientConfig{addresses=" + addresses + ", clientName=" + clientName + ", token="
                + (token == null ? "none" : "set") + ", connectTimeout=" + connectTimeout + ", requestTimeout="
                + requestTimeout + ", maxFrameSize=" + maxFrameSize + ", tls=" + (!tls ? "off"
                : tlsTrustedCertificates == null ? "default trust" : tlsTrustedCertificates.toString())
                + ", retryAttempts=" + retryAttempts + ", retryInitialBackoff=" + retryInitialBackoff
                + ", circuitBreakerFailureRate=" + circuitBreakerFailureRate + ", circuitBreakerWaitInOpenState="
                + circuitBreakerWaitInOpenState + '}';
    }
}
