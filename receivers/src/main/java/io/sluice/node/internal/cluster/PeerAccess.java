package io.sluice.node.internal.cluster;

import java.nio.file.Path;

/**
 * How this node connects to another member to read a partition it takes over: what any client of the cluster
 * presents (the members share one server config).
 *
 * @param token               the cluster's client token, or null for none
 * @param tls                 whether the members' ports speak TLS
 * @param trustedCertificates the PEM file of the certificates trusted for the members' TLS, or null for the JVM's
 *                            trust store
 */
public record PeerAccess(String token, boolean tls, Path trustedCertificates) {

    /** Plain TCP, no token. */
    public static final PeerAccess PLAIN = new PeerAccess(null, false, null);

    /** Without the token's value. */
    @Override
    public String toString() {
        return "PeerAccess{token=" + (token == null ? "none" : "set") + ", tls=" + tls
                + (trustedCertificates == null ? "" : ", trusted=" + trustedCertificates) + '}';
    }
}
