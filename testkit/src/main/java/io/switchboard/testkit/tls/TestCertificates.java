package io.switchboard.testkit.tls;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A self-signed server certificate for {@code 127.0.0.1} and {@code localhost}, made at test time
 * with the JDK's {@code keytool} in a temporary directory: a PKCS12 key store holding the server's
 * key and certificate, and a PKCS12 trust store holding the certificate alone, for the clients.
 * Both stores share one random password.
 *
 * <pre>{@code
 * try (TestCertificates tls = TestCertificates.generate()) {
 *     broker.useKeyStore(tls.keyStore(), tls.password());
 *     client.useTrustStore(tls.trustStore(), tls.password());
 * }
 * }</pre>
 *
 * The certificate (an EC P-256 key, valid for two days) carries the subject alternative names
 * {@code IP:127.0.0.1} and {@code DNS:localhost}, so clients that verify the host name accept it.
 * For servers that do not read Java key stores (RabbitMQ's Erlang TLS),
 * {@link #certificateDer()} and {@link #privateKeyPkcs8Der()} give the same certificate and key as
 * DER bytes. {@link #close()} deletes the directory.
 */
public final class TestCertificates implements AutoCloseable {

    private static final String ALIAS = "server";
    private static final String STORE_TYPE = "PKCS12";
    private static final long KEYTOOL_TIMEOUT_SECONDS = 60;

    private final Path directory;
    private final Path keyStore;
    private final Path trustStore;
    private final String password;

    private TestCertificates(Path directory, String password) {
        this.directory = directory;
        this.keyStore = directory.resolve("server-keystore.p12");
        this.trustStore = directory.resolve("client-truststore.p12");
        this.password = password;
    }

    /**
     * Generates the key store and trust store in a new temporary directory.
     *
     * @return the generated stores; close to delete them
     * @throws IllegalStateException if {@code keytool} cannot be run or fails
     */
    public static TestCertificates generate() {
        Path directory;
        try {
            directory = Files.createTempDirectory("switchboard-tls-");
        } catch (IOException e) {
            throw new UncheckedIOException("Could not create a temporary directory for test certificates", e);
        }
        byte[] random = new byte[12];
        new SecureRandom().nextBytes(random);
        TestCertificates tls = new TestCertificates(directory, "tls" + HexFormat.of().formatHex(random));
        try {
            tls.runKeytools();
            return tls;
        } catch (RuntimeException e) {
            tls.close();
            throw e;
        }
    }

    private void runKeytools() {
        Path certificate = directory.resolve("server.crt");
        keytool("-genkeypair", "-alias", ALIAS, "-keyalg", "EC", "-groupname", "secp256r1",
                "-dname", "CN=localhost, O=Switchboard tests", "-ext", "SAN=ip:127.0.0.1,dns:localhost",
                "-validity", "2", "-keystore", keyStore.toString(), "-storetype", STORE_TYPE,
                "-storepass", password, "-keypass", password);
        keytool("-exportcert", "-rfc", "-alias", ALIAS, "-keystore", keyStore.toString(), "-storetype", STORE_TYPE,
                "-storepass", password, "-file", certificate.toString());
        keytool("-importcert", "-noprompt", "-alias", ALIAS, "-file", certificate.toString(),
                "-keystore", trustStore.toString(), "-storetype", STORE_TYPE, "-storepass", password);
    }

    /** Runs the JDK's keytool; the store password is shown as {@code ***} in any failure message. */
    private void keytool(String... args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        String shown = String.join(" ", command).replace(password, "***");
        Process process;
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new IllegalStateException("Cannot run keytool (" + shown + "): the test JVM's java.home must be a "
                    + "JDK with bin/keytool", e);
        }
        CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> readAll(process.getInputStream()));
        try {
            if (!process.waitFor(KEYTOOL_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("keytool did not finish within " + KEYTOOL_TIMEOUT_SECONDS + " s: " + shown);
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException("keytool exited with " + process.exitValue() + ": " + shown + "\n"
                        + output.join().replace(password, "***").strip());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new IllegalStateException("Interrupted while running keytool", e);
        }
    }

    private static String readAll(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The server's PKCS12 key store: its private key and self-signed certificate.
     *
     * @return the key store's path
     */
    public Path keyStore() {
        return keyStore;
    }

    /**
     * The clients' PKCS12 trust store: the server's certificate alone.
     *
     * @return the trust store's path
     */
    public Path trustStore() {
        return trustStore;
    }

    /**
     * The password of both stores and of the key inside the key store.
     *
     * @return the password
     */
    public String password() {
        return password;
    }

    /**
     * The store type of both stores.
     *
     * @return {@code "PKCS12"}
     */
    public String storeType() {
        return STORE_TYPE;
    }

    /**
     * The server certificate, DER-encoded.
     *
     * @return the certificate's bytes
     */
    public byte[] certificateDer() {
        try {
            Certificate certificate = loadKeyStore().getCertificate(ALIAS);
            return certificate.getEncoded();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("Cannot read the certificate from " + keyStore, e);
        }
    }

    /**
     * The server's private key as a DER-encoded PKCS#8 {@code PrivateKeyInfo}.
     *
     * @return the key's bytes
     */
    public byte[] privateKeyPkcs8Der() {
        try {
            return loadKeyStore().getKey(ALIAS, password.toCharArray()).getEncoded();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("Cannot read the private key from " + keyStore, e);
        }
    }

    private KeyStore loadKeyStore() throws GeneralSecurityException {
        try (InputStream in = Files.newInputStream(keyStore)) {
            KeyStore store = KeyStore.getInstance(STORE_TYPE);
            store.load(in, password.toCharArray());
            return store;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read " + keyStore, e);
        }
    }

    /** Deletes the directory with both stores. */
    @Override
    public void close() {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Could not delete the test certificates in " + directory, e);
        }
    }

    /** Shows the directory, never the password. */
    @Override
    public String toString() {
        return "TestCertificates[" + directory + "]";
    }
}
