package io.switchboard.kafka;

import static io.switchboard.testkit.TestSecrets.allMessages;
import static io.switchboard.testkit.TestSecrets.randomPassword;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.Switchboard;
import io.switchboard.SwitchboardException;
import io.switchboard.testkit.RoundTrip;
import io.switchboard.testkit.kafka.EmbeddedKafka;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The adapter on a broker's SASL_SSL listener with SCRAM-SHA-512: an embedded broker of this class's
 * own, its certificate made at start and one SCRAM user bootstrapped into its metadata. Round trips
 * go through that listener only; a wrong password, a client that does not trust the certificate and
 * a client that speaks no TLS each fail the first use with an error that says what to fix. The
 * 60-second limits only guard against a hang; each failure comes within {@code kafka.connect-timeout}.
 */
@DisplayName("Kafka over SASL_SSL with SCRAM-SHA-512")
class KafkaSaslSslTest {

    private static final String USER = "sb-app";
    private static final String PASSWORD = randomPassword();
    private static EmbeddedKafka kafka;

    private final List<Switchboard> switchboards = new ArrayList<>();

    @BeforeAll
    static void startBroker() {
        kafka = EmbeddedKafka.builder().saslSslScram(USER, PASSWORD).start();
    }

    @AfterAll
    static void stopBroker() {
        if (kafka != null) {
            kafka.close();
        }
    }

    @AfterEach
    void closeSwitchboards() {
        switchboards.forEach(Switchboard::close);
    }

    @Test
    @DisplayName("publishes and a group receives every message, at least once and exactly once, through the SASL_SSL listener")
    void roundTrips() throws Exception {
        Switchboard sb = switchboard(kafka.saslSslClientProperties(USER, PASSWORD));
        for (Delivery delivery : List.of(Delivery.AT_LEAST_ONCE, Delivery.EXACTLY_ONCE)) {
            String topic = KafkaTestSupport.topic("sasl-" + delivery.name().toLowerCase().replace('_', '-'));

            RoundTrip.Result trip = RoundTrip.run(sb, topic, "billing", delivery, 20, KafkaTestSupport.TIMEOUT);

            assertThat(trip.received()).as("received at %s", delivery).hasSameElementsAs(trip.sent());
        }
        assertThat(kafka.saslSslBootstrapServers()).isNotEqualTo(kafka.bootstrapServers());
        assertThat(sb.toString()).contains("sasl.jaas.config").doesNotContain(PASSWORD).doesNotContain(kafka.trustStorePassword());
    }

    @Test
    @Timeout(60)
    @DisplayName("a wrong password fails the first publisher with a login error naming the mechanism and the property to fix")
    void wrongPassword() {
        String wrong = randomPassword();
        Switchboard sb = switchboard(kafka.saslSslClientProperties(USER, wrong));

        Throwable failure = catchThrowable(() -> sb.publisher(KafkaTestSupport.topic("sasl-wrong"), Codec.utf8()).build());

        assertThat(failure).isExactlyInstanceOf(SwitchboardException.class)
                .hasCauseInstanceOf(SaslAuthenticationException.class)
                .hasMessageContaining("The Kafka broker at " + kafka.saslSslBootstrapServers() + " refused the login")
                .hasMessageContaining("SCRAM-SHA-512")
                .hasMessageContaining("correct the user name and password in kafka.sasl.jaas.config");
        assertThat(allMessages(failure)).doesNotContain(wrong).doesNotContain(PASSWORD)
                .doesNotContain(kafka.trustStorePassword());
    }

    @Test
    @Timeout(60)
    @DisplayName("a client that does not trust the broker's certificate fails with a TLS error naming the trust store properties")
    void untrustedCertificate() {
        Map<String, String> client = kafka.saslSslClientProperties(USER, PASSWORD);
        client.keySet().removeIf(name -> name.startsWith("ssl.truststore."));
        Switchboard sb = switchboard(client);

        Throwable failure = catchThrowable(() -> sb.publisher(KafkaTestSupport.topic("sasl-untrusted"), Codec.utf8()).build());

        assertThat(failure).isExactlyInstanceOf(SwitchboardException.class)
                .hasCauseInstanceOf(SslAuthenticationException.class)
                .hasMessageContaining("The TLS handshake with the Kafka broker at " + kafka.saslSslBootstrapServers() + " failed")
                .hasMessageContaining("kafka.ssl.truststore.location");
        assertThat(allMessages(failure)).doesNotContain(PASSWORD);
    }

    @Test
    @Timeout(60)
    @DisplayName("a client without TLS at the SASL_SSL listener fails within kafka.connect-timeout, pointing at kafka.security.protocol")
    void clientWithoutTls() {
        Switchboard sb = switchboard(Map.of("bootstrap.servers", kafka.saslSslBootstrapServers(), "connect-timeout", "2s"));

        Throwable failure = catchThrowable(() -> sb.publisher(KafkaTestSupport.topic("sasl-plain"), Codec.utf8()).build());

        assertThat(failure).isExactlyInstanceOf(SwitchboardException.class)
                .hasMessageContaining("No Kafka broker answered at " + kafka.saslSslBootstrapServers() + " within PT2S")
                .hasMessageContaining("requires TLS or SASL, set kafka.security.protocol");
    }

    /** A Switchboard on Kafka with the given client properties, each prefixed with {@code kafka.}. */
    private Switchboard switchboard(Map<String, String> client) {
        Map<String, String> properties = new LinkedHashMap<>();
        client.forEach((name, value) -> properties.put("kafka." + name, value));
        Switchboard.Builder builder = Switchboard.builder().broker("kafka");
        properties.forEach(builder::property);
        Switchboard sb = builder.build();
        switchboards.add(sb);
        return sb;
    }
}
