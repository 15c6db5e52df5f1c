package io.switchboard.testkit.rocketmq;

import io.netty.handler.ssl.util.SelfSignedCertificate;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.apache.rocketmq.remoting.common.TlsMode;
import org.apache.rocketmq.remoting.netty.TlsSystemConfig;

/**
 * A self-signed certificate and key for an embedded broker with TLS, and the JVM-wide settings of
 * RocketMQ's TLS that go with them.
 *
 * <p>RocketMQ 5.5.0 keeps every TLS setting in static fields of {@link TlsSystemConfig} (read from
 * {@code tls.*} system properties when the class loads): a server reads the mode when it is
 * created, a client the trust settings when it is started. So this class sets them for the whole
 * JVM:
 * <ul>
 *   <li>{@link #serverMode()}: TLS enforced ({@code tls.server.mode=enforcing}) with this certificate,
 *       only while the name server and broker are created; servers created afterwards get the mode
 *       the JVM had again;
 *   <li>{@link #trustForClients()}: from then until {@link #close()}, every RocketMQ client started in
 *       the JVM with TLS verifies the broker's certificate against this one
 *       ({@code tls.test.mode.enable=false}, {@code tls.client.authServer=true},
 *       {@code tls.client.trustCertPath}).
 * </ul>
 * Run one TLS broker at a time in a JVM.
 */
final class TlsFiles implements AutoCloseable {

    private final Path certificate;
    private final Path privateKey;
    private final Saved saved = new Saved();
    private boolean trusting;

    private TlsFiles(Path certificate, Path privateKey) {
        this.certificate = certificate;
        this.privateKey = privateKey;
    }

    /** Netty's system property for the host name check of TLS clients that do not choose their own. */
    static final String NETTY_ENDPOINT_CHECK = "io.netty.handler.ssl.defaultEndpointVerificationAlgorithm";

    /**
     * Fails, saying why, when RocketMQ clients (the broker's own, which registers with the name server, included)
     * could not verify the certificate: rocketmq 5.5.0 opens TLS connections without the peer's host name, and
     * Netty 4.2 checks host names by default unless {@code -Dio.netty.handler.ssl.defaultEndpointVerificationAlgorithm=NONE}.
     */
    static void requireUsableHostNameCheck() {
        io.netty.util.Version handler = io.netty.util.Version.identify(TlsFiles.class.getClassLoader()).get("netty-handler");
        String version = handler == null ? null : handler.artifactVersion();
        if (version == null || version.startsWith("4.0.") || version.startsWith("4.1.")) {
            return;
        }
        String check = System.getProperty(NETTY_ENDPOINT_CHECK);
        if (check == null || !check.trim().equalsIgnoreCase("NONE")) {
            throw new IllegalStateException("Cannot start a TLS RocketMQ whose certificate clients verify on Netty "
                    + version + ": RocketMQ 5.5.0 opens TLS connections without the peer's host name and Netty 4.2 "
                    + "checks host names by default (SSLHandshakeException: Hostname or IP address is undefined). Start "
                    + "the test JVM with -D" + NETTY_ENDPOINT_CHECK + "=NONE (was " + check + ")");
        }
    }

    /** Generates a self-signed certificate for {@code localhost} and its key, as PEM files in {@code dir}. */
    static TlsFiles generate(Path dir) throws Exception {
        SelfSignedCertificate generated = new SelfSignedCertificate("localhost");
        try {
            Files.createDirectories(dir);
            Path certificate = Files.copy(generated.certificate().toPath(), dir.resolve("broker-cert.pem"),
                    StandardCopyOption.REPLACE_EXISTING);
            Path key = Files.copy(generated.privateKey().toPath(), dir.resolve("broker-key.pem"),
                    StandardCopyOption.REPLACE_EXISTING);
            return new TlsFiles(certificate, key);
        } finally {
            generated.delete();
        }
    }

    /** {@return the broker's certificate (PEM), for clients to trust} */
    Path certificate() {
        return certificate;
    }

    /**
     * Enforces TLS with this certificate for the servers created until the returned handle is closed; the broker's
     * own client (registration with the name server) trusts it too.
     */
    AutoCloseable serverMode() {
        TlsMode mode = TlsSystemConfig.tlsMode;
        String cert = TlsSystemConfig.tlsServerCertPath;
        String key = TlsSystemConfig.tlsServerKeyPath;
        String configFile = TlsSystemConfig.tlsConfigFile;
        trustForClients();
        TlsSystemConfig.tlsMode = TlsMode.ENFORCING;
        TlsSystemConfig.tlsServerCertPath = certificate.toString();
        TlsSystemConfig.tlsServerKeyPath = privateKey.toString();
        // no /etc/rocketmq/tls.properties: it would override what is set here
        TlsSystemConfig.tlsConfigFile = certificate.resolveSibling("no-tls.properties").toString();
        return () -> {
            TlsSystemConfig.tlsMode = mode;
            TlsSystemConfig.tlsServerCertPath = cert;
            TlsSystemConfig.tlsServerKeyPath = key;
            TlsSystemConfig.tlsConfigFile = configFile;
        };
    }

    /** Has RocketMQ clients started from now on verify broker certificates against this one, until {@link #close()}. */
    synchronized void trustForClients() {
        if (trusting) {
            return;
        }
        saved.take();
        trusting = true;
        TlsSystemConfig.tlsTestModeEnable = false;
        TlsSystemConfig.tlsClientAuthServer = true;
        TlsSystemConfig.tlsClientTrustCertPath = certificate.toString();
    }

    /** Gives the JVM back the client trust settings it had. The files go with the broker's directory. */
    @Override
    public synchronized void close() {
        if (trusting) {
            saved.restore();
            trusting = false;
        }
    }

    /** The JVM's client trust settings before this certificate's. */
    private static final class Saved {
        private boolean testMode;
        private boolean authServer;
        private String trustCertPath;

        void take() {
            testMode = TlsSystemConfig.tlsTestModeEnable;
            authServer = TlsSystemConfig.tlsClientAuthServer;
            trustCertPath = TlsSystemConfig.tlsClientTrustCertPath;
        }

        void restore() {
            TlsSystemConfig.tlsTestModeEnable = testMode;
            TlsSystemConfig.tlsClientAuthServer = authServer;
            TlsSystemConfig.tlsClientTrustCertPath = trustCertPath;
        }
    }
}
