package io.sluice.client;

import io.sluice.client.internal.Address;
import io.sluice.client.internal.ClientSettings;
import io.sluice.protocol.internal.Wire;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How a {@link SluiceClient} reaches its nodes. Immutable; made with {@link #builder()} or
 * {@link #addresses(String...)} and validated when built.
 *
 * <pre>{@code
 * Sluice sluice = SluiceClient.connect(ClientConfig.builder()
 *         .addresses("127.0.0.1:10800")
 *         .requestTimeout(Duration.ofSeconds(10))
 *         .build());
 * }</pre>
 */
public final class ClientConfig {

    /** Default bound of connecting to a node, handshake included: 10 seconds. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
    /** Default bound of one request (a cache operation, or a streamed request's answer): 60 seconds. */
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(60);
    /** Default attempts of a request that fails in a retriable way, the first included: 6. */
    public static final int DEFAULT_RETRY_ATTEMPTS = 6;
    /** Default wait before the first retry (doubling, with jitter, up to 5 seconds): 100 ms. */
    public static final Duration DEFAULT_RETRY_INITIAL_BACKOFF = Duration.ofMillis(100);
    /** The longest wait between two attempts of a request: the backoff doubles up to this. */
    public static final Duration MAX_BACKOFF = ClientSettings.MAX_BACKOFF;
    /** Default failure rate, in percent of a node's last 20 calls, that opens its circuit breaker: 50. */
    public static final int DEFAULT_CIRCUIT_BREAKER_FAILURE_RATE = 50;
    /** Default time an open circuit breaker fails calls fast before it lets probes through: 5 seconds. */
    public static final Duration DEFAULT_CIRCUIT_BREAKER_WAIT_IN_OPEN_STATE = Duration.ofSeconds(5);

    /** The values, in the form the client's internals read them. */
    private final ClientSettings settings;

    private ClientConfig(Builder b) {
        this.settings = new ClientSettings(b.addresses, b.clientName, b.token, b.connectTimeout, b.requestTimeout,
                b.maxFrameSize, b.tls, b.tlsTrustedCertificates, b.retryAttempts, b.retryInitialBackoff,
                b.circuitBreakerFailureRate, b.circuitBreakerWaitInOpenState);
    }

    /** A config with these node addresses and every other setting at its default. */
    public static ClientConfig addresses(String... addresses) {
        return builder().addresses(addresses).build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Whether connections use TLS (the node must have TLS on). */
    public boolean tls() {
        return settings.tls();
    }

    /** The PEM file of the certificates trusted for the nodes' TLS, or null for the JVM's default trust store. */
    public java.nio.file.Path tlsTrustedCertificates() {
        return settings.tlsTrustedCertificates();
    }

    /**
     * The nodes' addresses, {@code host:port}. For a cluster any one reachable address is enough: the client asks it
     * for the cluster's map and reaches the other members at the addresses the map gives.
     */
    public List<String> addresses() {
        return settings.addresses();
    }

    /** The name the client gives in its handshake (shown in the node's log). */
    public String clientName() {
        return settings.clientName();
    }

    /** The token presented in the handshake, or null. */
    public String token() {
        return settings.token();
    }

    public Duration connectTimeout() {
        return settings.connectTimeout();
    }

    /**
     * Bound of one request; in a cluster also how long the client keeps sending a request's entries again to a
     * partition's new owner (or waits for a partition without owner) before it fails naming the partition.
     */
    public Duration requestTimeout() {
        return settings.requestTimeout();
    }

    /**
     * The largest frame the client sends or accepts: a streamed request longer than this goes as several
     * frames. Keep it at most the node's {@code maxFrameSize} (the same default).
     */
    public int maxFrameSize() {
        return settings.maxFrameSize();
    }

    /**
     * Attempts of a request that fails in a retriable way (the connection was lost before the node
     * answered, the connection was refused, the node refused because it is stopping), and of a first
     * connection (refused, lost during the handshake, the node serving its maximum of connections), the first
     * included; 1 means no retry. Retries wait {@link #retryInitialBackoff()}, doubling with jitter,
     * and none starts later than {@link #requestTimeout()} after the first attempt.
     */
    public int retryAttempts() {
        return settings.retryAttempts();
    }

    public Duration retryInitialBackoff() {
        return settings.retryInitialBackoff();
    }

    /**
     * The failure rate, in percent of a node's last 20 calls (at least 10 of them made), at which the
     * node's circuit breaker opens: new calls to the node then fail fast with
     * {@link io.sluice.NodeUnreachableException} for {@link #circuitBreakerWaitInOpenState()}, after
     * which a few probe calls decide whether it closes again.
     */
    public int circuitBreakerFailureRate() {
        return settings.circuitBreakerFailureRate();
    }

    public Duration circuitBreakerWaitInOpenState() {
        return settings.circuitBreakerWaitInOpenState();
    }

    /** The settings the client runs with (what {@link SluiceClient} hands its internals). */
    ClientSettings settings() {
        return settings;
    }

    /** The settings, the token only as set or none. */
    @Override
    public String toString() {
        return settings.toString();
    }

    /** Builds a {@link ClientConfig}. */
    public static final class Builder {
        private final List<String> addresses = new ArrayList<>();
        private String clientName = "sluice-client";
        private String token;
        private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;
        private int maxFrameSize = Wire.DEFAULT_MAX_FRAME;
        private boolean tls;
        private java.nio.file.Path tlsTrustedCertificates;
        private int retryAttempts = DEFAULT_RETRY_ATTEMPTS;
        private Duration retryInitialBackoff = DEFAULT_RETRY_INITIAL_BACKOFF;
        private int circuitBreakerFailureRate = DEFAULT_CIRCUIT_BREAKER_FAILURE_RATE;
        private Duration circuitBreakerWaitInOpenState = DEFAULT_CIRCUIT_BREAKER_WAIT_IN_OPEN_STATE;

        private Builder() {
        }

        /**
         * Connects with TLS, trusting the node certificates the JVM's default trust store trusts; the
         * certificate must name the host of the address (hostname verification is on).
         */
        public Builder tls() {
            this.tls = true;
            this.tlsTrustedCertificates = null;
            return this;
        }

        /**
         * Connects with TLS, trusting the certificates in this PEM file (a node's self-signed certificate,
         * or the CA that signed it); the certificate must name the host of the address.
         *
         * @throws IllegalArgumentException if the file cannot be read
         */
        public Builder tls(java.nio.file.Path trustedCertificatesPem) {
            Objects.requireNonNull(trustedCertificatesPem, "trustedCertificatesPem");
            if (!java.nio.file.Files.isReadable(trustedCertificatesPem)) {
                throw new IllegalArgumentException("cannot read the trusted certificates " + trustedCertificatesPem
                        + " (ClientConfig.tls)");
            }
            this.tls = true;
            this.tlsTrustedCertificates = trustedCertificatesPem;
            return this;
        }

        /**
         * Node addresses, {@code host:port}; at least one is needed.
         *
         * @throws IllegalArgumentException if an address is not {@code host:port} with a port from 1 to 65535
         */
        public Builder addresses(String... addresses) {
            for (String a : addresses) {
                Address.parse(a);
                this.addresses.add(a);
            }
            return this;
        }

        public Builder clientName(String name) {
            this.clientName = Objects.requireNonNull(name, "clientName");
            return this;
        }

        /** The node's token, if it requires one; null for none. */
        public Builder token(String token) {
            this.token = token;
            return this;
        }

        /** @param timeout positive */
        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = positive("connectTimeout", timeout);
            return this;
        }

        /** @param timeout positive */
        public Builder requestTimeout(Duration timeout) {
            this.requestTimeout = positive("requestTimeout", timeout);
            return this;
        }

        /** @param bytes at least 1 KiB */
        public Builder maxFrameSize(int bytes) {
            if (bytes < 1024) {
                throw new IllegalArgumentException("maxFrameSize is " + bytes + "; it must be at least 1024"
                        + " (ClientConfig.maxFrameSize)");
            }
            this.maxFrameSize = bytes;
            return this;
        }

        /** @param attempts from 1 (no retry) to 100; default {@value ClientConfig#DEFAULT_RETRY_ATTEMPTS} */
        public Builder retryAttempts(int attempts) {
            if (attempts < 1 || attempts > 100) {
                throw new IllegalArgumentException("retryAttempts is " + attempts + "; it must be from 1 (no retry)"
                        + " to 100 (ClientConfig.retryAttempts)");
            }
            this.retryAttempts = attempts;
            return this;
        }

        /** @param backoff positive, at most 5 seconds; default 100 ms */
        public Builder retryInitialBackoff(Duration backoff) {
            positive("retryInitialBackoff", backoff);
            if (backoff.compareTo(MAX_BACKOFF) > 0) {
                throw new IllegalArgumentException("retryInitialBackoff is " + backoff + "; it must be at most "
                        + MAX_BACKOFF + " (ClientConfig.retryInitialBackoff)");
            }
            this.retryInitialBackoff = backoff;
            return this;
        }

        /** @param percent from 1 to 100; default {@value ClientConfig#DEFAULT_CIRCUIT_BREAKER_FAILURE_RATE} */
        public Builder circuitBreakerFailureRate(int percent) {
            if (percent < 1 || percent > 100) {
                throw new IllegalArgumentException("circuitBreakerFailureRate is " + percent + "; it must be a"
                        + " percentage from 1 to 100 (ClientConfig.circuitBreakerFailureRate)");
            }
            this.circuitBreakerFailureRate = percent;
            return this;
        }

        /** @param wait positive; default 5 seconds */
        public Builder circuitBreakerWaitInOpenState(Duration wait) {
            this.circuitBreakerWaitInOpenState = positive("circuitBreakerWaitInOpenState", wait);
            return this;
        }

        /** @throws IllegalArgumentException if no address was given */
        public ClientConfig build() {
            if (addresses.isEmpty()) {
                throw new IllegalArgumentException("no node address; give at least one host:port"
                        + " (ClientConfig.addresses)");
            }
            return new ClientConfig(this);
        }

        private static Duration positive(String name, Duration d) {
            Objects.requireNonNull(d, name);
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(name + " is " + d + "; it must be positive (ClientConfig." + name + ")");
            }
            return d;
        }
    }
}
