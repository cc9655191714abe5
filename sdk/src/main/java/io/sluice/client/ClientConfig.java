package io.sluice.client;

import io.sluice.client.internal.Address;
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

    private final List<String> addresses;
    private final String clientName;
    private final String token;
    private final Duration connectTimeout;
    private final Duration requestTimeout;
    private final int maxFrameSize;
    private final boolean tls;
    private final java.nio.file.Path tlsTrustedCertificates;

    private ClientConfig(Builder b) {
        this.tls = b.tls;
        this.tlsTrustedCertificates = b.tlsTrustedCertificates;
        this.addresses = List.copyOf(b.addresses);
        this.clientName = b.clientName;
        this.token = b.token;
        this.connectTimeout = b.connectTimeout;
        this.requestTimeout = b.requestTimeout;
        this.maxFrameSize = b.maxFrameSize;
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
        return tls;
    }

    /** The PEM file of the certificates trusted for the nodes' TLS, or null for the JVM's default trust store. */
    public java.nio.file.Path tlsTrustedCertificates() {
        return tlsTrustedCertificates;
    }

    /** The nodes' addresses, {@code host:port}. */
    public List<String> addresses() {
        return addresses;
    }

    /** The name the client gives in its handshake (shown in the node's log). */
    public String clientName() {
        return clientName;
    }

    /** The token presented in the handshake, or null. */
    public String token() {
        return token;
    }

    public Duration connectTimeout() {
        return connectTimeout;
    }

    public Duration requestTimeout() {
        return requestTimeout;
    }

    /**
     * The largest frame the client sends or accepts: a streamed request longer than this goes as several
     * frames. Keep it at most the node's {@code maxFrameSize} (the same default).
     */
    public int maxFrameSize() {
        return maxFrameSize;
    }

    @Override
    public String toString() {
        return "ClientConfig{addresses=" + addresses + ", clientName=" + clientName + ", token="
                + (token == null ? "none" : "set") + ", connectTimeout=" + connectTimeout + ", requestTimeout="
                + requestTimeout + ", maxFrameSize=" + maxFrameSize + ", tls=" + (!tls ? "off"
                : tlsTrustedCertificates == null ? "default trust" : tlsTrustedCertificates.toString()) + '}';
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
