package io.switchboard.spring.brokers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;

import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.spring.brokers.OrdersApp.Inbox;
import io.switchboard.spring.brokers.OrdersApp.Order;
import io.switchboard.testkit.fault.TcpProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.http.MediaType;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.MockMvc;

/**
 * The whole starter in an application on two real brokers: Kafka (in-process) as instance
 * {@code kafka}, the local RabbitMQ behind a TCP proxy as instance {@code rabbit}.
 */
@SpringBootTest(classes = OrdersApp.class)
@AutoConfigureMockMvc
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@DisplayName("An application on Kafka and RabbitMQ")
class KafkaAndRabbitApplicationTest {

    static final String TOPIC = Brokers.destination("orders");
    static TcpProxy rabbitProxy;

    @DynamicPropertySource
    static void brokers(DynamicPropertyRegistry registry) {
        rabbitProxy = TcpProxy.start(Brokers.rabbit().host(), Brokers.rabbit().port());
        registry.add("app.topic", () -> TOPIC);
        registry.add("switchboard.instances.kafka.type", () -> "kafka");
        registry.add("switchboard.instances.kafka.bootstrap-servers", Brokers::kafkaBootstrap);
        registry.add("switchboard.instances.rabbit.type", () -> "rabbitmq");
        registry.add("switchboard.instances.rabbit.host", () -> "127.0.0.1");
        registry.add("switchboard.instances.rabbit.port", () -> rabbitProxy.port());
        registry.add("switchboard.instances.rabbit.properties.recovery-interval", () -> "500ms");
        registry.add("switchboard.routes." + TOPIC + ".instance", () -> "kafka");
        registry.add("switchboard.health.timeout", () -> "2s");
        registry.add("management.endpoints.web.exposure.include", () -> "health,switchboard,prometheus");
        registry.add("management.endpoint.health.show-details", () -> "always");
    }

    @AfterAll
    static void cleanUp() throws Exception {
        if (rabbitProxy != null) {
            rabbitProxy.close();
        }
        Brokers.deleteRabbitLeftovers();
    }

    @Autowired
    Publisher<Order> orders;

    @Autowired
    Inbox inbox;

    @Autowired
    MockMvc mvc;

    private List<String> handled(int count) throws InterruptedException {
        List<String> got = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String next = inbox.handled.poll(30, TimeUnit.SECONDS);
            assertThat(next).as("message %d of %d within 30 s (got %s)", i + 1, count, got).isNotNull();
            got.add(next);
        }
        return got;
    }

    private MockHttpServletResponse call(org.springframework.test.web.servlet.RequestBuilder request) throws Exception {
        return mvc.perform(request).andReturn().getResponse();
    }

    private MockHttpServletResponse changeRoute(String json) throws Exception {
        return call(post("/actuator/switchboard/" + TOPIC).contentType(MediaType.APPLICATION_JSON).content(json));
    }

    @Test
    @org.junit.jupiter.api.Order(1)
    @DisplayName("an annotated listener receives what an injected publisher sends, on the routed broker")
    void listenerReceivesWhatPublisherSends() throws Exception {
        orders.publish(Message.of("c-1", new Order("o-1", 1250))).toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertThat(handled(1)).containsExactly("o-1@kafka");
    }

    @Test
    @org.junit.jupiter.api.Order(2)
    @DisplayName("an actuator write flips the weights and the next messages follow to RabbitMQ")
    void actuatorWriteFlipsWeights() throws Exception {
        MockHttpServletResponse response = changeRoute("{\"mode\": \"split\", \"weights\": \"kafka=0,rabbit=100\"}");
        assertThat(response.getStatus()).as(response.getContentAsString()).isEqualTo(200);
        assertThat(response.getContentAsString()).contains("\"rabbit\":100");
        for (int i = 0; i < 5; i++) {
            orders.publish(Message.of("c-" + i, new Order("r-" + i, i))).toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
        assertThat(handled(5)).allMatch(h -> h.endsWith("@rabbit"));
    }

    @Test
    @org.junit.jupiter.api.Order(3)
    @DisplayName("a wrong write is refused with 400 and a body naming the property, the value and the fix"
            + " (Boot's error body would leave the message out)")
    void badWriteRefused() throws Exception {
        MockHttpServletResponse response = changeRoute("{\"mode\": \"split\", \"weights\": \"kafka=0,nowhere=100\"}");
        assertThat(response.getStatus()).isEqualTo(400);
        assertThat(response.getContentType()).contains("json");
        String body = response.getContentAsString();
        assertThat(body).contains("\"property\":\"switchboard.routes." + TOPIC + ".weights.nowhere\"", "\"value\":\"100\"",
                "no instance is named 'nowhere'", "\"fix\":\"Name one of the instances under switchboard.instances");
        MockHttpServletResponse badMode = changeRoute("{\"mode\": \"sideways\"}");
        assertThat(badMode.getStatus()).isEqualTo(400);
        assertThat(badMode.getContentAsString()).contains("\"property\":\"switchboard.routes." + TOPIC + ".mode\"",
                "\"value\":\"sideways\"", "single, split, mirror, failover or migrate");
        assertThat(call(get("/actuator/switchboard/" + TOPIC)).getContentAsString()).as("nothing changed")
                .contains("\"rabbit\":100");
    }

    @Test
    @org.junit.jupiter.api.Order(4)
    @DisplayName("the read shows instances (no password), routes and the comparison")
    void readEndpoint() throws Exception {
        String body = call(get("/actuator/switchboard")).getContentAsString();
        assertThat(body).contains("\"instances\"", "\"kafka\"", "\"rabbit\"", "\"routes\"", TOPIC, "\"comparison\"", "verdict")
                .doesNotContain(":guest@");
    }

    @Test
    @org.junit.jupiter.api.Order(5)
    @DisplayName("/actuator/prometheus shows the meters tagged with broker and instance")
    void prometheus() throws Exception {
        String body = call(get("/actuator/prometheus")).getContentAsString();
        List<String> publishLines = body.lines().filter(l -> l.startsWith("switchboard_publish_seconds_count{")).toList();
        assertThat(publishLines).anySatisfy(l -> assertThat(l).contains("broker=\"kafka\"", "instance=\"kafka\"", TOPIC));
        assertThat(publishLines).anySatisfy(l -> assertThat(l).contains("broker=\"rabbitmq\"", "instance=\"rabbit\""));
        // Micrometer Timers by default: Prometheus names as every Timer exports them, no renamed max series
        assertThat(body).contains("switchboard_publish_seconds_max{", "switchboard_publish_seconds_sum{",
                "switchboard_publish_bytes_total{");
        assertThat(body).doesNotContain("switchboard_publish_max_seconds", "switchboard_publish_size_bytes");
    }

    @Test
    @org.junit.jupiter.api.Order(6)
    @DisplayName("health turns DOWN when RabbitMQ is cut off, UP again when it is back; Kafka stays UP")
    void healthFollowsTheBroker() throws Exception {
        assertThat(call(get("/actuator/health/switchboard/rabbit")).getContentAsString()).contains("\"UP\"");
        rabbitProxy.cut();
        try {
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                MockHttpServletResponse down = call(get("/actuator/health/switchboard/rabbit"));
                assertThat(down.getStatus()).isEqualTo(503);
                assertThat(down.getContentAsString()).contains("\"DOWN\"", "reason").doesNotContain(":guest@");
            });
            assertThat(call(get("/actuator/health/switchboard/kafka")).getContentAsString()).contains("\"UP\"");
        } finally {
            rabbitProxy.restore();
        }
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                assertThat(call(get("/actuator/health/switchboard/rabbit")).getContentAsString()).contains("\"UP\""));
    }
}
