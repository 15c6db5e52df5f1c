package io.switchboard.spring.brokers;

import static io.switchboard.testkit.TestSecrets.allMessages;
import static io.switchboard.testkit.TestSecrets.randomPassword;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.Publisher;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.spring.Publishers;
import io.switchboard.spring.brokers.OrdersApp.Inbox;
import io.switchboard.spring.brokers.OrdersApp.Order;
import io.switchboard.testkit.Recorder;
import io.switchboard.testkit.kafka.EmbeddedKafka;
import io.switchboard.testkit.rabbit.RabbitTlsListener;
import io.switchboard.testkit.tls.TestCertificates;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A full application, web server and actuator included, started with real secrets on every
 * adapter that has any, used on the success paths and on the failure paths:
 * <ul>
 * <li>Kafka over SASL_SSL with SCRAM-SHA-512 (a broker of this class's own): the SCRAM password in
 * {@code sasl.jaas.config} and the trust store password; a round trip through the listener, and a
 * second instance with a wrong SCRAM password whose publish fails;</li>
 * <li>RabbitMQ over TLS (an extra listener on the local server, a user and vhost of this class's
 * own): the password in {@code uri} and the trust store password as a property, a round trip; and
 * the guest user with a wrong password given as the {@code password} property, whose publish fails
 * and whose health is DOWN.</li>
 * </ul>
 * RocketMQ is not here: its adapter has no credentials to configure (no ACL access key or secret key).
 * None of the secrets may appear in the log output (Switchboard logs at DEBUG in these tests, see
 * {@code simplelogger.properties}; Kafka, RabbitMQ and Spring at their defaults), in the actuator's
 * answers (env, configprops, switchboard, health, beans, metrics, prometheus), in the
 * {@code toString()} of the Switchboard, publishers and a subscription, in exception messages, or in
 * the name or tags of any meter.
 */
@ExtendWith(OutputCaptureExtension.class)
@DisplayName("Secrets never appear in logs, toString(), actuator output, exception messages or meter tags")
class SecretsNeverShownTest {

    static final String SCRAM_PASSWORD = randomPassword();
    static final String WRONG_SCRAM_PASSWORD = randomPassword();
    static final String RABBIT_PASSWORD = randomPassword();
    static final String WRONG_RABBIT_PASSWORD = randomPassword();
    static final String SCRAM_USER = "sb-secrets";
    static final String RABBIT_USER = "sb-secrets-" + Brokers.RUN;
    static final String RABBIT_VHOST = "sb-secrets-" + Brokers.RUN;

    static EmbeddedKafka kafka;
    static TestCertificates rabbitTls;
    static RabbitTlsListener rabbitTlsListener;

    @BeforeAll
    static void startSecuredBrokers() {
        kafka = EmbeddedKafka.builder().saslSslScram(SCRAM_USER, SCRAM_PASSWORD).start();
        Brokers.rabbit().addVirtualHost(RABBIT_VHOST);
        Brokers.rabbit().addUser(RABBIT_USER, RABBIT_PASSWORD);
        Brokers.rabbit().grantAll(RABBIT_VHOST, RABBIT_USER);
        rabbitTls = TestCertificates.generate();
        rabbitTlsListener = Brokers.rabbit().startTlsListener(rabbitTls);
    }

    @AfterAll
    static void cleanUp() throws Exception {
        try {
            if (rabbitTlsListener != null) {
                rabbitTlsListener.close();
            }
            Brokers.rabbit().deleteUser(RABBIT_USER);
            Brokers.rabbit().deleteVirtualHost(RABBIT_VHOST);
            Brokers.deleteRabbitLeftovers();
        } finally {
            if (rabbitTls != null) {
                rabbitTls.close();
            }
            if (kafka != null) {
                kafka.close();
            }
        }
    }

    @Test
    void noSecretAnywhere(CapturedOutput output) throws Exception {
        String rabbitRefused = Brokers.destination("refused");
        String kafkaRefused = Brokers.destination("krefused");
        String rabbitOverTls = Brokers.destination("tls");
        List<String> secrets = List.of(SCRAM_PASSWORD, WRONG_SCRAM_PASSWORD, RABBIT_PASSWORD, WRONG_RABBIT_PASSWORD,
                kafka.trustStorePassword(), rabbitTls.password());
        List<String> seen = new ArrayList<>();
        List<String> properties = new ArrayList<>(List.of("server.port=0", "spring.main.banner-mode=off",
                "management.endpoints.web.exposure.include=*", "management.endpoint.health.show-details=always",
                "management.endpoint.env.show-values=always", "management.endpoint.configprops.show-values=always",
                "app.topic=" + Brokers.destination("plain"),
                "switchboard.default-instance=kafka",
                "switchboard.instances.rabbit.type=rabbitmq",
                "switchboard.instances.rabbit.host=" + Brokers.rabbit().host(),
                "switchboard.instances.rabbit.port=" + Brokers.rabbit().port(),
                "switchboard.instances.rabbit.username=guest",
                "switchboard.instances.rabbit.password=" + WRONG_RABBIT_PASSWORD,
                "switchboard.instances.rabbittls.type=rabbitmq",
                "switchboard.instances.rabbittls.uri=" + rabbitTlsListener.uri(RABBIT_USER, RABBIT_PASSWORD, RABBIT_VHOST),
                "switchboard.instances.rabbittls.properties.[tls.truststore]=" + rabbitTls.trustStore(),
                "switchboard.instances.rabbittls.properties.[tls.truststore-password]=" + rabbitTls.password(),
                "switchboard.routes." + rabbitRefused + ".instance=rabbit",
                "switchboard.routes." + kafkaRefused + ".instance=kafkabad",
                "switchboard.routes." + rabbitOverTls + ".instance=rabbittls"));
        properties.addAll(kafkaInstance("kafka", kafka.saslSslClientProperties(SCRAM_USER, SCRAM_PASSWORD)));
        properties.addAll(kafkaInstance("kafkabad", kafka.saslSslClientProperties(SCRAM_USER, WRONG_SCRAM_PASSWORD)));

        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(OrdersApp.class)
                .properties(properties.toArray(String[]::new)).run()) {
            // Kafka over SASL_SSL: an order published and handled by the listener
            Publisher<Order> orders = context.getBean(Publisher.class);
            orders.publish(new Order("o-1", 1)).toCompletableFuture().get(60, TimeUnit.SECONDS);
            assertThat(context.getBean(Inbox.class).handled.poll(60, TimeUnit.SECONDS)).isEqualTo("o-1@kafka");
            seen.add(orders.toString());

            // RabbitMQ over TLS as its own user: a round trip, and the subscription's toString
            Switchboard switchboard = context.getBean(Switchboard.class);
            Recorder<String> received = new Recorder<>(Duration.ofSeconds(60));
            Subscription subscription = switchboard.subscriber(rabbitOverTls, Codec.utf8()).group("secrets")
                    .delivery(Delivery.AT_LEAST_ONCE).subscribe(received);
            subscription.ready().toCompletableFuture().get(60, TimeUnit.SECONDS);
            Publishers publishers = context.getBean(Publishers.class);
            Publisher<String> overTls = publishers.get(rabbitOverTls, String.class);
            overTls.publish("over-tls").toCompletableFuture().get(60, TimeUnit.SECONDS);
            assertThat(received.awaitCount(1).payloads()).containsExactly("over-tls");
            seen.add(subscription.toString());
            seen.add(overTls.toString());
            seen.add(switchboard.toString());

            // failure paths: wrong passwords on RabbitMQ and on Kafka, in exceptions and in health
            assertThatThrownBy(() -> publishers.get(rabbitRefused, String.class).publish("x").toCompletableFuture()
                    .get(60, TimeUnit.SECONDS)).satisfies(e -> seen.add(allMessages(e)));
            assertThatThrownBy(() -> publishers.get(kafkaRefused, String.class).publish("x").toCompletableFuture()
                    .get(60, TimeUnit.SECONDS)).satisfies(e -> seen.add(allMessages(e)))
                    .hasStackTraceContaining("refused the login");
            HealthContributor health = context.getBean("switchboardHealthContributor", HealthContributor.class);
            String rabbitHealth = ((HealthIndicator) ((CompositeHealthContributor) health).getContributor("rabbit"))
                    .health().toString();
            assertThat(rabbitHealth).contains("DOWN");
            seen.add(rabbitHealth);

            // meters: every name and tag
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            List<String> meters = registry.getMeters().stream().map(Meter::getId).map(Object::toString).toList();
            assertThat(meters).anyMatch(id -> id.contains("kafka")).anyMatch(id -> id.contains("rabbittls"));
            seen.addAll(meters);

            String port = context.getEnvironment().getProperty("local.server.port");
            HttpClient http = HttpClient.newHttpClient();
            for (String path : List.of("env", "configprops", "switchboard", "health", "beans", "metrics", "prometheus")) {
                HttpResponse<String> response = http.send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + "/actuator/" + path)).build(), HttpResponse.BodyHandlers.ofString());
                // health answers 503 while an instance is DOWN, as the two with wrong passwords are
                assertThat(response.statusCode()).as("/actuator/%s status", path).isEqualTo(path.equals("health") ? 503 : 200);
                assertThat(response.body()).as("/actuator/%s answered", path).isNotBlank();
                seen.add(response.body());
            }
        }
        seen.add(output.getAll());
        String everything = String.join("\n", seen);
        assertThat(everything).contains("sasl.jaas.config").contains("ssl.truststore.password")
                .contains("tls.truststore-password").contains(RABBIT_USER);
        for (String secret : secrets) {
            assertThat(everything).as("what the application showed").doesNotContain(secret);
        }
    }

    /** The properties of a Kafka instance on the SASL_SSL listener, the client properties in its properties map. */
    private static List<String> kafkaInstance(String name, Map<String, String> client) {
        List<String> properties = new ArrayList<>();
        properties.add("switchboard.instances." + name + ".type=kafka");
        properties.add("switchboard.instances." + name + ".bootstrap-servers=" + client.get("bootstrap.servers"));
        properties.add("switchboard.instances." + name + ".properties.[connect-timeout]=10s");
        client.forEach((key, value) -> {
            if (!key.equals("bootstrap.servers")) {
                properties.add("switchboard.instances." + name + ".properties.[" + key + "]=" + value);
            }
        });
        return properties;
    }
}
