package io.switchboard.rocketmq.internal.client;

import io.netty.util.Version;
import java.util.Locale;
import org.apache.rocketmq.remoting.netty.TlsSystemConfig;

/**
 * What rocketmq-client 5.5's TLS can do in this JVM. Its trust settings are JVM-wide: the static fields of
 * {@link TlsSystemConfig}, read from {@code tls.*} system properties when the class loads (and from
 * {@code tls.config.file}, by default {@code /etc/rocketmq/tls.properties}, when a client starts), with no per-client
 * setting.
 */
public final class TlsSupport {

    /** Netty's system property for the host name check of TLS clients that do not choose their own. */
    public static final String NETTY_ENDPOINT_CHECK = "io.netty.handler.ssl.defaultEndpointVerificationAlgorithm";

    private TlsSupport() {}

    /** {@return true when RocketMQ clients started now verify the broker's certificate (against {@code tls.client.trustCertPath})} */
    public static boolean verifiesBroker() {
        return !TlsSystemConfig.tlsTestModeEnable && TlsSystemConfig.tlsClientAuthServer;
    }

    /**
     * Why TLS with the broker's certificate verified cannot connect in this JVM, or null if it can. rocketmq-client
     * 5.5.0 opens its TLS connections without the broker's host name, and Netty 4.2 (unlike 4.1, which RocketMQ is
     * built with) checks the host name of a TLS client by default: every handshake then fails with
     * {@code SSLHandshakeException: Hostname or IP address is undefined}, which rocketmq-client only logs.
     */
    public static String verificationBlocker() {
        if (!verifiesBroker() || !nettyChecksHostNamesByDefault()) {
            return null;
        }
        return "RocketMQ's client verifies the broker's certificate here (" + TlsSystemConfig.TLS_TEST_MODE_ENABLE
                + "=false, " + TlsSystemConfig.TLS_CLIENT_AUTHSERVER + "=true) but opens TLS connections without the "
                + "broker's host name, and Netty " + nettyVersion() + " checks host names by default, so every "
                + "handshake would fail (Hostname or IP address is undefined). Start the JVM with -D"
                + NETTY_ENDPOINT_CHECK + "=NONE: the certificate is still verified against "
                + TlsSystemConfig.TLS_CLIENT_TRUSTCERTPATH + ", the host name is not (this applies to every Netty TLS "
                + "client of the JVM that does not choose its own check)";
    }

    private static boolean nettyChecksHostNamesByDefault() {
        String version = nettyVersion();
        if (version == null || version.startsWith("4.0.") || version.startsWith("4.1.")) {
            return false;
        }
        String check = System.getProperty(NETTY_ENDPOINT_CHECK);
        return check == null || !check.trim().toUpperCase(Locale.ROOT).equals("NONE");
    }

    /** The version of the netty-handler on the class path, or null if Netty does not say. */
    private static String nettyVersion() {
        Version handler = Version.identify(TlsSupport.class.getClassLoader()).get("netty-handler");
        return handler == null ? null : handler.artifactVersion();
    }
}
