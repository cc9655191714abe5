package io.sluice.node.internal.cluster;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;

/**
 * Blocking client sockets to a node's Sluice port, plain or TLS, for what talks to nodes outside the client's event
 * loop: a partition file's fetch, the admin commands and the status page. Through TLS the node's certificate must be
 * trusted (the given PEM file's certificates, or the JVM's trust store) and must name the host dialled (HTTPS
 * endpoint identification: a member is dialled at the address it advertises). Thread-safe (no state).
 */
public final class MemberTls {

    private MemberTls() {
    }

    /**
     * A TLS context trusting the certificates of a PEM file, or the JVM's trust store.
     *
     * @param trustedCertificates a PEM file of X.509 certificates, or null for the JVM's trust store
     * @throws IOException naming the file if it cannot be read or holds no usable certificate
     */
    public static SSLContext trusting(Path trustedCertificates) throws IOException {
        try {
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            if (trustedCertificates == null) {
                trust.init((KeyStore) null);
            } else {
                KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
                store.load(null, null);
                try (InputStream pem = Files.newInputStream(trustedCertificates)) {
                    int i = 0;
                    for (Certificate cert : CertificateFactory.getInstance("X.509").generateCertificates(pem)) {
                        store.setCertificateEntry("member-" + i++, cert);
                    }
                }
                trust.init(store);
            }
            SSLContext c = SSLContext.getInstance("TLS");
            c.init(null, trust.getTrustManagers(), null);
            return c;
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot set up TLS with the trusted certificates "
                    + (trustedCertificates == null ? "of the JVM's trust store" : trustedCertificates) + ": " + e, e);
        }
    }

    /**
     * Connects to {@code host:port} with TCP_NODELAY, through TLS when {@code tls} is not null (its handshake done
     * before this returns). The socket's read timeout is left to the caller.
     *
     * @param tls a context from {@link #trusting}, or null for plain TCP
     * @throws IOException if it cannot connect within {@code timeoutMillis} or the TLS handshake fails (an untrusted
     *                     certificate, or one that does not name {@code host})
     */
    public static Socket connect(String host, int port, int timeoutMillis, SSLContext tls) throws IOException {
        Socket socket = tls != null ? tls.getSocketFactory().createSocket() : new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(host, port), timeoutMillis);
            if (socket instanceof SSLSocket ssl) {
                SSLParameters parameters = ssl.getSSLParameters();
                parameters.setEndpointIdentificationAlgorithm("HTTPS"); // the member's certificate must name it
                ssl.setSSLParameters(parameters);
                ssl.setSoTimeout(timeoutMillis); // the handshake's reads
                ssl.startHandshake();
            }
            return socket;
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }
}
