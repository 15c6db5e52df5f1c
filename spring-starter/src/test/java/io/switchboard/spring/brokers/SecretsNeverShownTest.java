package io.switchboard.spring.brokers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.switchboard.Publisher;
import io.switchboard.spring.Publishers;
import io.switchboard.spring.brokers.OrdersApp.Order;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
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
 * A full application, web server and actuator included, started with secrets configured: a SASL
 * JAAS config among Kafka's properties and a RabbitMQ password (wrong on purpose, so that the
 * failure paths log too). None of them may appear in the log output, in the actuator's answers
 * or in exception messages.
 */
@ExtendWith(OutputCaptureExtension.class)
@DisplayName("Secrets never appear in logs, actuator output or exception messages")
class SecretsNeverShownTest {

    static final String JAAS_SECRET = "Jaas-S3cret-" + Brokers.RUN;
    static final String RABBIT_PASSWORD = "Rabbit-S3cret-" + Brokers.RUN;

    @AfterAll
    static void cleanUp() throws Exception {
        Brokers.deleteRabbitLeftovers();
    }

    @Test
    void noSecretAnywhere(CapturedOutput output) throws Exception {
        String secured = Brokers.destination("secured");
        List<String> seen = new ArrayList<>();
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(OrdersApp.class).properties(
                "server.port=0", "spring.main.banner-mode=off",
                "management.endpoints.web.exposure.include=*", "management.endpoint.health.show-details=always",
                "management.endpoint.env.show-values=always", "management.endpoint.configprops.show-values=always",
                "app.topic=" + Brokers.destination("plain"),
                "switchboard.instances.kafka.type=kafka",
                "switchboard.instances.kafka.bootstrap-servers=" + Brokers.kafkaBootstrap(),
                "switchboard.instances.kafka.properties.[sasl.jaas.config]="
                        + "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"app\" password=\""
                        + JAAS_SECRET + "\";",
                "switchboard.instances.rabbit.type=rabbitmq",
                "switchboard.instances.rabbit.host=" + Brokers.rabbit().host(),
                "switchboard.instances.rabbit.port=" + Brokers.rabbit().port(),
                "switchboard.instances.rabbit.username=guest",
                "switchboard.instances.rabbit.password=" + RABBIT_PASSWORD,
                "switchboard.default-instance=kafka",
                "switchboard.routes." + secured + ".instance=rabbit").run()) {
            // the Kafka side works with the JAAS config present
            context.getBean(Publisher.class).publish(new Order("o-1", 1)).toCompletableFuture().get(30, TimeUnit.SECONDS);
            // the RabbitMQ side fails on the wrong password: in an exception, and in health
            Publishers publishers = context.getBean(Publishers.class);
            assertThatThrownBy(() -> publishers.get(secured, String.class).publish("x").toCompletableFuture()
                    .get(30, TimeUnit.SECONDS)).satisfies(e -> seen.add(describe(e)));
            HealthContributor health = context.getBean("switchboardHealthContributor", HealthContributor.class);
            String rabbitHealth = ((HealthIndicator) ((CompositeHealthContributor) health).getContributor("rabbit"))
                    .health().toString();
            assertThat(rabbitHealth).contains("DOWN");
            seen.add(rabbitHealth);

            String port = context.getEnvironment().getProperty("local.server.port");
            HttpClient http = HttpClient.newHttpClient();
            for (String path : List.of("env", "configprops", "switchboard", "health", "beans")) {
                HttpResponse<String> response = http.send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + "/actuator/" + path)).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(response.body()).as("/actuator/%s answered", path).isNotBlank();
                seen.add(response.body());
            }
        }
        seen.add(output.getAll());
        assertThat(String.join("\n", seen)).contains("sasl.jaas.config").doesNotContain(JAAS_SECRET)
                .doesNotContain(RABBIT_PASSWORD);
    }

    private static String describe(Throwable error) {
        StringBuilder text = new StringBuilder();
        for (Throwable t = error; t != null; t = t.getCause()) {
            text.append(t).append('\n');
        }
        return text.toString();
    }
}
