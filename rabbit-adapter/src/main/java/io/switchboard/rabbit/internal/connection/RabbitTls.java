package io.switchboard.rabbit.internal.connection;

import io.switchboard.ConfigurationException;
import io.switchboard.rabbit.internal.RabbitSettings;
import io.switchboard.spi.BrokerConfig;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.Locale;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * TLS for an {@code amqps://} URI: the server's certificate is always verified, against
 * {@code rabbitmq.tls.truststore} when it is set, else against the JVM's default trust store, and
 * the certificate must name the URI's host (host name verification). amqp-client's own
 * {@code amqps} default, which trusts every certificate, is never used.
 *
 * <p>Properties: {@code rabbitmq.tls.truststore} (a path), {@code rabbitmq.tls.truststore-password}
 * (never shown: its key names a password) and {@code rabbitmq.tls.truststore-type} (default
 * {@code PKCS12}, or {@code JKS}). Errors name the property and the path, never the password.
 */
final class RabbitTls {

    static final String TRUSTSTORE = "rabbitmq.tls.truststore";
    static final String TRUSTSTORE_PASSWORD = "rabbitmq.tls.truststore-password";
    static final String TRUSTSTORE_TYPE = "rabbitmq.tls.truststore-type";

    private RabbitTls() {}

    /** True when the URI asks for TLS. */
    static boolean wanted(String uri) {
        return uri.toLowerCase(Locale.ROOT).startsWith("amqps:");
    }

    /**
     * Refuses trust store settings on a URI without TLS, where they would silently do nothing.
     *
     * @throws ConfigurationException naming the property and the fix
     */
    static void check(BrokerConfig config, String uri) {
        if (!wanted(uri) && config.get(TRUSTSTORE) != null) {
            throw new ConfigurationException("Broker instance '" + config.instanceName() + "' (rabbitmq): property '"
                    + TRUSTSTORE + "' is set but rabbitmq.uri '" + BrokerConfig.printable(RabbitSettings.URI, uri)
                    + "' does not use TLS; use an amqps:// URI (the server's TLS port, 5671 by default) or remove "
                    + TRUSTSTORE);
        }
    }

    /** The TLS context for an {@code amqps} connection: trusted certificates from the trust store or the JVM's. */
    static SSLContext context(BrokerConfig config) {
        String location = config.get(TRUSTSTORE);
        try {
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(location == null ? null : load(config, location));
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new ConfigurationException("Broker instance '" + config.instanceName() + "' (rabbitmq): cannot set up "
                    + "TLS with " + (location == null ? "the JVM's default trust store" : TRUSTSTORE + " '" + location + "'")
                    + ": " + e.getMessage(), e);
        }
    }

    private static KeyStore load(BrokerConfig config, String location) throws GeneralSecurityException {
        String type = config.get(TRUSTSTORE_TYPE, "PKCS12").trim();
        String password = config.get(TRUSTSTORE_PASSWORD);
        KeyStore store = KeyStore.getInstance(type);
        try (InputStream in = Files.newInputStream(Path.of(location))) {
            store.load(in, password == null ? null : password.toCharArray());
            return store;
        } catch (IOException e) {
            // a wrong password shows as an IOException whose cause is an UnrecoverableKeyException
            throw new ConfigurationException("Broker instance '" + config.instanceName() + "' (rabbitmq): cannot read the "
                    + type + " trust store '" + location + "' of property '" + TRUSTSTORE + "': " + e.getMessage()
                    + "; check the path, " + TRUSTSTORE_TYPE + " and " + TRUSTSTORE_PASSWORD, e);
        }
    }
}
