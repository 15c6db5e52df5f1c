package io.switchboard.spring.bootmanaged;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.DeliveryContext;
import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.Switchboard;
import io.switchboard.routing.Route;
import io.switchboard.spring.Publishers;
import io.switchboard.spring.SwitchboardListener;
import io.switchboard.testkit.rabbit.RabbitMqServer;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * The starter and the adapters on the kafka-clients and amqp-client versions Spring Boot 4.1.2
 * manages, as an application built on spring-boot-starter-parent resolves them. Runs in its own
 * surefire execution (tag {@code boot-managed}) whose classpath swaps those two jars; Kafka runs in
 * a JVM of its own because the broker needs the newer client it was built with.
 */
@Tag("boot-managed")
@DisplayName("On the client versions Spring Boot manages")
class BootManagedClientsTest {

    static final String RUN = UUID.randomUUID().toString().substring(0, 8);
    static final String TOPIC = "sbt-managed-" + RUN;
    static Process kafkaServer;
    static String bootstrap;

    @BeforeAll
    static void startKafkaInItsOwnJvm() throws Exception {
        String classpath = Files.readString(Path.of(System.getProperty("switchboard.kafka-server.classpath-file")),
                StandardCharsets.UTF_8).trim() + File.pathSeparator + System.getProperty("switchboard.test-classes");
        // beside the test classes, not in /tmp: nothing is left behind outside the build directory
        Path ready = Path.of(System.getProperty("switchboard.test-classes")).resolveSibling("kafka-server.bootstrap");
        Files.deleteIfExists(ready); // an earlier run's address
        Path log = ready.resolveSibling("kafka-server.log");
        kafkaServer = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m",
                "-cp", classpath, KafkaServerMain.class.getName(), ready.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        await().atMost(Duration.ofSeconds(90)).until(() -> Files.exists(ready) || !kafkaServer.isAlive());
        assertThat(kafkaServer.isAlive()).as("the Kafka broker JVM runs (its output: %s)", log).isTrue();
        bootstrap = Files.readString(ready, StandardCharsets.UTF_8).trim();
    }

    @AfterAll
    static void stop() throws Exception {
        if (kafkaServer != null) {
            kafkaServer.getOutputStream().close();
            if (!kafkaServer.waitFor(30, TimeUnit.SECONDS)) {
                kafkaServer.destroyForcibly();
            }
        }
        RabbitMqServer.local().require().deleteNamesStartingWith(List.of(TOPIC));
    }

    private static String jarOf(Class<?> type) {
        return type.getProtectionDomain().getCodeSource().getLocation().getPath();
    }

    /** The application. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
        static final BlockingQueue<String> handled = new LinkedBlockingQueue<>();

        @Bean
        Object listener() {
            return new Object() {
                @SwitchboardListener(destination = "${app.topic}", group = "billing")
                void handle(String payload, DeliveryContext context) {
                    handled.add(payload + "@" + context.instance());
                }
            };
        }
    }

    @Test
    @DisplayName("the clients are Boot's versions, and a round trip works on Kafka and on RabbitMQ")
    void roundTripOnBootManagedClients() throws Exception {
        assertThat(jarOf(org.apache.kafka.clients.producer.KafkaProducer.class))
                .endsWith("kafka-clients-" + System.getProperty("switchboard.expected.kafka-clients") + ".jar");
        assertThat(jarOf(com.rabbitmq.client.ConnectionFactory.class))
                .endsWith("amqp-client-" + System.getProperty("switchboard.expected.amqp-client") + ".jar");
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class).web(
                org.springframework.boot.WebApplicationType.NONE).properties("spring.main.banner-mode=off",
                "app.topic=" + TOPIC,
                "switchboard.instances.kafka.type=kafka", "switchboard.instances.kafka.bootstrap-servers=" + bootstrap,
                "switchboard.instances.rabbit.type=rabbitmq",
                "switchboard.instances.rabbit.uri=" + RabbitMqServer.local().require().uriWithCredentials(),
                "switchboard.routes." + TOPIC + ".instance=kafka").run()) {
            Publisher<String> publisher = context.getBean(Publishers.class).get(TOPIC, String.class);
            publisher.publish(Message.of("k", "one")).toCompletableFuture().get(30, TimeUnit.SECONDS);
            context.getBean(Switchboard.class).routing().update(TOPIC, Route.split(Map.of("kafka", 0, "rabbit", 100)));
            publisher.publish(Message.of("k", "two")).toCompletableFuture().get(30, TimeUnit.SECONDS);
            List<String> got = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                got.add(App.handled.poll(60, TimeUnit.SECONDS));
            }
            assertThat(got).containsExactlyInAnyOrder("one@kafka", "two@rabbit");
        }
    }
}
