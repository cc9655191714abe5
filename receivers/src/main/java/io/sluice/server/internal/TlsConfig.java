package io.sluice.server.internal;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;

import javax.net.ssl.KeyManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.Objects;

/**
 * The node's TLS: its private key and certificate in a PKCS#12 key store (what {@code keytool
 * -genkeypair -storetype PKCS12} writes, or {@code openssl pkcs12 -export}).
 *
 * @param keyStore         the PKCS#12 file
 * @param keyStorePassword its password (also the key's)
 */
public record TlsConfig(Path keyStore, String keyStorePassword) {

    public TlsConfig {
        Objects.requireNonNull(keyStore, "keyStore");
        Objects.requireNonNull(keyStorePassword, "keyStorePassword");
    }

    @Override
    public String toString() {
        return "TlsConfig{keyStore=" + keyStore + ", keyStorePassword=set}";
    }

    /**
     * The server context.
     *
     * @throws IllegalArgumentException naming the file if it cannot be read, is not PKCS#12, or the password is wrong
     */
    SslContext serverContext() {
        char[] password = keyStorePassword.toCharArray();
        try (InputStream in = Files.newInputStream(keyStore)) {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(in, password);
            KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(store, password);
            return SslContextBuilder.forServer(keys).build();
        } catch (IOException | GeneralSecurityException | RuntimeException e) {
            throw new IllegalArgumentException("cannot use the TLS key store " + keyStore + ": " + e.getMessage()
                    + " (a PKCS#12 file holding the node's key and certificate, and its password)", e);
        }
    }
}
