package io.switchboard.rabbit;

import static io.switchboard.testkit.TestSecrets.allMessages;
import static io.switchboard.testkit.TestSecrets.randomPassword;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.switchboard.Codec;
import io.switchboard.ConfigurationException;
import io.switchboard.Delivery;
import io.switchboard.Switchboard;
import io.switchboard.SwitchboardException;
import io.switchboard.testkit.RoundTrip;
import io.switchboard.testkit.rabbit.RabbitMqServer;
import io.switchboard.testkit.rabbit.RabbitTlsListener;
import io.switchboard.testkit.tls.TestCertificates;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The adapter over TLS ({@code amqps}) to the local RabbitMQ, as a user of its own on a vhost of
 * its own. The shared server is neither restarted nor reconfigured: an extra TLS listener is started
 * at run time ({@code rabbitmqctl eval rabbit_networking:start_ssl_listener}) with a certificate made
 * for this class, and stopped afterwards, with the user and the vhost. The 60-second limits only
 * guard against a hang; each failure comes within {@code rabbitmq.connect-timeout}.
 */
@DisplayName("RabbitMQ over TLS (amqps) with its own user and virtual host")
class RabbitTlsTest {

    private static final RabbitMqServer SERVER = RabbitMqServer.local();
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final Codec<String> TEXT = Codec.utf8();
    private static final String SUFFIX = UUID.randomUUID().toString().substring(0, 8);
    private static final String VHOST = "sb-tls-" + SUFFIX;
    private static final String USER = "sb-tls-app-" + SUFFIX;
    private static final String PASSWORD = randomPassword();

    private static TestCertificates tls;
    private static RabbitTlsListener listener;

    private final List<Switchboard> switchboards = new ArrayList<>();

    @BeforeAll
    static void startListenerAndCreateUser() {
        SERVER.require();
        tls = TestCertificates.generate();
        listener = SERVER.startTlsListener(tls);
        SERVER.addVirtualHost(VHOST);
        SERVER.addUser(USER, PASSWORD);
        SERVER.grantAll(VHOST, USER);
    }

    @AfterAll
    static void stopListenerAndDeleteUser() {
        try {
            if (listener != null) {
                listener.close();
                assertThat(listener.isListening()).as("the TLS listener on port %d is stopped", listener.port()).isFalse();
            }
        } finally {
            try {
                SERVER.deleteUser(USER);
                SERVER.deleteVirtualHost(VHOST);
            } finally {
                if (tls != null) {
                    tls.close();
                }
            }
        }
    }

    @AfterEach
    void closeSwitchboards() {
        switchboards.forEach(Switchboard::close);
    }

    @Test
    @DisplayName("publishes and a group receives every message over a TLS connection that verified the server's certificate")
    void roundTripOverTls() throws Exception {
        Switchboard sb = switchboard(listener.uri(USER, PASSWORD, VHOST), trustStore(tls.password()));
        String destination = "tls-orders-" + SUFFIX;

        RoundTrip.Result trip = RoundTrip.run(sb, destination, "billing", Delivery.AT_LEAST_ONCE, 20, TIMEOUT);

        assertThat(trip.received()).hasSameElementsAs(trip.sent());
        assertThat(SERVER.queuesOf(VHOST)).contains(destination + ".billing");
        // the server's own view: the user's connections (this Switchboard's publishing and consuming ones) are TLS, on the extra listener
        assertThat(SERVER.connectionsOf(USER)).hasSizeGreaterThanOrEqualTo(2)
                .allSatisfy(line -> assertThat(line).isEqualTo(USER + "\ttrue\t" + listener.port()));
        assertThat(sb.toString()).doesNotContain(PASSWORD).doesNotContain(tls.password());
    }

    @Test
    @Timeout(60)
    @DisplayName("without a trust store holding the server's certificate, the first use fails with a TLS error naming rabbitmq.tls.truststore")
    void untrustedCertificate() {
        Switchboard sb = switchboard(listener.uri(USER, PASSWORD, VHOST), Map.of());

        Throwable failure = catchThrowable(() -> sb.publisher("tls-untrusted-" + SUFFIX, TEXT).build());

        assertThat(failure).isExactlyInstanceOf(SwitchboardException.class)
                .hasCauseInstanceOf(SSLHandshakeException.class)
                .hasMessageContaining("The TLS handshake with RabbitMQ at amqps://" + USER + ":******@127.0.0.1:"
                        + listener.port())
                .hasMessageContaining("Make rabbitmq.tls.truststore");
        assertThat(allMessages(failure)).doesNotContain(PASSWORD);
    }

    @Test
    @Timeout(60)
    @DisplayName("a plain amqp:// URI at the TLS port fails within rabbitmq.connect-timeout, pointing at amqps://")
    void plainClientAtTlsPort() {
        String plain = listener.uri(USER, PASSWORD, VHOST).replace("amqps://", "amqp://");
        Switchboard sb = switchboard(plain, Map.of("rabbitmq.connect-timeout", "3s"));

        Throwable failure = catchThrowable(() -> sb.publisher("tls-plain-" + SUFFIX, TEXT).build());

        assertThat(failure).isExactlyInstanceOf(SwitchboardException.class)
                .hasMessageContaining("Cannot connect to RabbitMQ at amqp://" + USER + ":******@127.0.0.1:" + listener.port())
                .hasMessageContaining("if that port is a TLS listener, use an amqps:// URI");
        assertThat(failure.getCause()).isInstanceOfAny(IOException.class, java.util.concurrent.TimeoutException.class)
                .isNotInstanceOf(SSLException.class);
        assertThat(allMessages(failure)).doesNotContain(PASSWORD);
    }

    @Test
    @DisplayName("a trust store with a wrong password, or on an amqp:// URI, is refused when the Switchboard is built, the password never shown")
    void badTrustStoreSettings() {
        String wrong = randomPassword();
        Throwable wrongPassword = catchThrowable(() -> switchboard(listener.uri(USER, PASSWORD, VHOST), trustStore(wrong)));
        Throwable notTls = catchThrowable(() -> switchboard("amqp://" + USER + ":" + PASSWORD + "@127.0.0.1:"
                + SERVER.port() + "/" + VHOST, trustStore(tls.password())));

        assertThat(wrongPassword).isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("cannot read the PKCS12 trust store '" + tls.trustStore() + "'")
                .hasMessageContaining("check the path, rabbitmq.tls.truststore-type and rabbitmq.tls.truststore-password");
        assertThat(notTls).isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("property 'rabbitmq.tls.truststore' is set but rabbitmq.uri")
                .hasMessageContaining("use an amqps:// URI");
        assertThat(allMessages(wrongPassword) + allMessages(notTls)).doesNotContain(wrong).doesNotContain(tls.password())
                .doesNotContain(PASSWORD);
    }

    /** A Switchboard at {@code uri} (not connected yet: the adapter connects on first use), closed after the test. */
    private Switchboard switchboard(String uri, Map<String, String> extraProperties) {
        Switchboard sb = Switchboard.builder().broker("rabbitmq").property("rabbitmq.uri", uri)
                .property("rabbitmq.connection-name", "sb-tls-" + SUFFIX).properties(extraProperties).build();
        switchboards.add(sb);
        return sb;
    }

    /** The trust store properties for the listener's certificate, with another password if asked. */
    private static Map<String, String> trustStore(String password) {
        return Map.of("rabbitmq.tls.truststore", tls.trustStore().toString(), "rabbitmq.tls.truststore-password", password,
                "rabbitmq.tls.truststore-type", tls.storeType());
    }
}
