package io.switchboard.examples.bootrocketmq;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.DeliveryContext;
import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.spring.Publishers;
import io.switchboard.spring.SwitchboardListener;
import io.switchboard.testkit.rocketmq.EmbeddedRocketMq;
import io.netty.util.Version;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.rocketmq.common.MQVersion;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * The RocketMQ adapter in an application on spring-boot-starter-parent 4.1.2: Boot's dependency
 * management puts Netty 4.2 under rocketmq-client (built against 4.1); a listener receives what a
 * publisher sends through the embedded name server and broker, and a message its handler rejects
 * goes to the dead-letter destination.
 */
class BootManagedRocketMqTest {

    static final String ORDERS = "boot-rmq-" + UUID.randomUUID().toString().substring(0, 8);
    static EmbeddedRocketMq rocketmq;
    static ConfigurableApplicationContext app;

    record Order(String id, long cents) {}

    @SpringBootApplication
    static class App {
        final BlockingQueue<String> handled = new LinkedBlockingQueue<>();
        final BlockingQueue<String> deadLettered = new LinkedBlockingQueue<>();

        @Bean
        Publisher<Order> orders(Publishers publishers) {
            return publishers.get(ORDERS, Order.class);
        }

        @SwitchboardListener(destination = "${test.orders}", group = "billing")
        void bill(Order order, DeliveryContext context) {
            if (order.cents() < 0) {
                throw new IllegalArgumentException("negative amount in " + order.id());
            }
            handled.add(order.id() + "@" + context.brokerId());
        }

        @SwitchboardListener(destination = "${test.orders}_dlq", group = "audit")
        void audit(Message<byte[]> dead) {
            deadLettered.add(dead.id());
        }
    }

    @BeforeAll
    static void start() {
        rocketmq = EmbeddedRocketMq.start();
        app = new SpringApplicationBuilder(App.class).properties(
                "test.orders=" + ORDERS,
                "switchboard.instances.main.type=rocketmq",
                "switchboard.instances.main.name-server=" + rocketmq.nameServerAddress(),
                "switchboard.destinations." + ORDERS + ".retry.max-attempts=2",
                "switchboard.destinations." + ORDERS + ".retry.initial-backoff=100ms").run();
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
        if (rocketmq != null) {
            rocketmq.close();
        }
    }

    @Test
    @DisplayName("on Boot's managed Netty 4.2, a listener receives orders and a rejected one is dead-lettered")
    void roundTripOnBootManagedNetty() throws Exception {
        assertThat(SpringBootVersion.getVersion()).isEqualTo("4.1.2");
        assertThat(Version.identify().get("netty-common").artifactVersion()).as("Netty that Boot's management chose")
                .isEqualTo(System.getProperty("switchboard.expected.netty")).startsWith("4.2.");
        assertThat(MQVersion.getVersionDesc(MQVersion.CURRENT_VERSION)).isEqualTo("V5_5_0");

        @SuppressWarnings("unchecked")
        Publisher<Order> orders = app.getBean("orders", Publisher.class);
        App listeners = app.getBean(App.class);
        for (int i = 0; i < 5; i++) {
            orders.publish(Message.of("c-" + i, new Order("o-" + i, 100 + i))).toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
        String poison = orders.publish(Message.of("c-x", new Order("o-x", -1))).toCompletableFuture()
                .get(30, TimeUnit.SECONDS).messageId();
        List<String> handled = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            String next = listeners.handled.poll(60, TimeUnit.SECONDS);
            assertThat(next).as("order %d of 5 within 60 s (got %s)", i + 1, handled).isNotNull();
            handled.add(next);
        }
        assertThat(handled).containsExactlyInAnyOrder("o-0@rocketmq", "o-1@rocketmq", "o-2@rocketmq", "o-3@rocketmq",
                "o-4@rocketmq");
        assertThat(listeners.deadLettered.poll(90, TimeUnit.SECONDS)).as("the rejected order, dead-lettered").isEqualTo(poison);
    }
}
