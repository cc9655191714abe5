package io.sluice.testing;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A node's TLS key and certificate for tests, made with the JDK's {@code keytool}: an EC key in a PKCS#12 key store
 * (password {@link #PASSWORD} unless told) whose certificate names 127.0.0.1 (CN and SAN), and that certificate as
 * PEM.
 *
 * @param keyStore    the PKCS#12 key store with the key and certificate (alias = the name given)
 * @param certificate the certificate alone, PEM (what a client or member trusts)
 */
public record TestCertificates(Path keyStore, Path certificate) {

    public static final String PASSWORD = "changeit";

    /** Makes {@code <name>.p12} and {@code <name>.pem} in {@code dir}, the key store's password {@link #PASSWORD}. */
    public static TestCertificates make(Path dir, String name) throws IOException, InterruptedException {
        return make(dir, name, PASSWORD);
    }

    /** Makes {@code <name>.p12} (with this password) and {@code <name>.pem} in {@code dir}. */
    public static TestCertificates make(Path dir, String name, String password)
            throws IOException, InterruptedException {
        Path keys = dir.resolve(name + ".p12");
        keytool("-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=127.0.0.1",
                "-ext", "SAN=ip:127.0.0.1", "-validity", "2", "-storetype", "PKCS12", "-keystore", keys.toString(),
                "-storepass", password);
        Path pem = dir.resolve(name + ".pem");
        keytool("-exportcert", "-rfc", "-alias", name, "-keystore", keys.toString(), "-storepass", password,
                "-file", pem.toString());
        return new TestCertificates(keys, pem);
    }

    private static void keytool(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("keytool did not end within 60 s: " + command);
        }
        if (p.exitValue() != 0) {
            throw new IOException("keytool failed (" + p.exitValue() + "): " + command + "\n" + out);
        }
    }
}
