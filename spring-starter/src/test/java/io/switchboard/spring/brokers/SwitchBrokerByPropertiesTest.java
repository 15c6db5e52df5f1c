package io.switchboard.spring.brokers;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.Switchboard;
import io.switchboard.spring.brokers.OrdersApp.Inbox;
import io.switchboard.spring.brokers.OrdersApp.Order;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The same application code on Kafka, then on RabbitMQ: only application properties differ. */
@DisplayName("Switching broker is a change of properties only")
class SwitchBrokerByPropertiesTest {

    @AfterAll
    static void cleanUp() throws Exception {
        Brokers.deleteRabbitLeftovers();
    }

    abstract static class RoundTrip {
        @Autowired
        Publisher<Order> orders;

        @Autowired
        Inbox inbox;

        @Autowired
        Switchboard switchboard;

        void roundTrip(String expectedBroker) throws Exception {
            assertThat(switchboard.brokerId()).isEqualTo(expectedBroker);
            orders.publish(Message.of("c-1", new Order("o-1", 100))).toCompletableFuture().get(30, TimeUnit.SECONDS);
            assertThat(inbox.handled.poll(30, TimeUnit.SECONDS)).isEqualTo("o-1@main");
        }
    }

    @Nested
    @SpringBootTest(classes = OrdersApp.class)
    @DisplayName("switchboard.instances.main.type: kafka")
    class OnKafka extends RoundTrip {
        @DynamicPropertySource
        static void properties(DynamicPropertyRegistry registry) {
            registry.add("app.topic", () -> Brokers.destination("switch-k"));
            registry.add("switchboard.instances.main.type", () -> "kafka");
            registry.add("switchboard.instances.main.bootstrap-servers", Brokers::kafkaBootstrap);
        }

        @Test
        void roundTrip() throws Exception {
            roundTrip("kafka");
        }
    }

    @Nested
    @SpringBootTest(classes = OrdersApp.class)
    @DisplayName("switchboard.instances.main.type: rabbitmq")
    class OnRabbit extends RoundTrip {
        @DynamicPropertySource
        static void properties(DynamicPropertyRegistry registry) {
            registry.add("app.topic", () -> Brokers.destination("switch-r"));
            registry.add("switchboard.instances.main.type", () -> "rabbitmq");
            registry.add("switchboard.instances.main.uri", () -> Brokers.rabbit().uriWithCredentials());
        }

        @Test
        void roundTrip() throws Exception {
            roundTrip("rabbitmq");
        }
    }
}
