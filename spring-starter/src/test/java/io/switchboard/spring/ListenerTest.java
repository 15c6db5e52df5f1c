package io.switchboard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.DeliveryContext;
import io.switchboard.Message;
import io.switchboard.Publisher;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@DisplayName("Annotated listeners and injected publishers on the in-memory broker")
class ListenerTest {

    static final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SwitchboardAutoConfiguration.class))
            .withPropertyValues("switchboard.properties.[memory.broker]=listener-test");

    /** A JSON payload. */
    public record Order(String id, long cents) {}

    /** A payload Jackson 2 without modules cannot write, Jackson 3 can. */
    public record Shipped(String id, Instant at) {}

    static class Received {
        final BlockingQueue<Object> items = new LinkedBlockingQueue<>();

        Object next() throws InterruptedException {
            Object item = items.poll(10, TimeUnit.SECONDS);
            assertThat(item).as("a message within 10 s").isNotNull();
            return item;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OrderListeners {
        @Bean
        Received received() {
            return new Received();
        }

        @Bean
        Billing billing(Received received) {
            return new Billing(received);
        }
    }

    static class Billing {
        private final Received received;

        Billing(Received received) {
            this.received = received;
        }

        @SwitchboardListener(destination = "${app.orders:orders-a}", group = "billing")
        void bill(Order order, DeliveryContext context) {
            received.items.add(Map.of("order", order, "group", context.group(), "broker", context.instance()));
        }

        @SwitchboardListener(destination = "notes-a", concurrency = "2")
        void note(Message<String> message) {
            received.items.add("note:" + message.key() + ":" + message.payload());
        }

        @SwitchboardListener(destination = "blobs-a")
        void blob(DeliveryContext context, byte[] bytes) {
            received.items.add("blob:" + bytes.length);
        }
    }

    @Test
    @DisplayName("a listener receives what an injected publisher sends: POJO as JSON, String, byte[]; Message and context")
    void roundTrip() {
        runner.withUserConfiguration(OrderListeners.class).run(context -> {
            assertThat(context).hasNotFailed();
            Publishers publishers = context.getBean(Publishers.class);
            Publisher<Order> orders = publishers.get("orders-a", Order.class);
            assertThat(publishers.get("orders-a", Order.class)).isSameAs(orders);
            orders.publish(new Order("o-1", 1250)).toCompletableFuture().join();
            publishers.get("notes-a", String.class).publish(Message.of("k1", "hello")).toCompletableFuture().join();
            publishers.get("blobs-a", byte[].class).publish(new byte[] {1, 2, 3}).toCompletableFuture().join();

            Received received = context.getBean(Received.class);
            java.util.List<Object> got = new java.util.ArrayList<>();
            for (int i = 0; i < 3; i++) {
                got.add(received.next());
            }
            assertThat(got).contains(Map.of("order", new Order("o-1", 1250), "group", "billing", "broker", "memory"),
                    "note:k1:hello", "blob:3");
        });
    }

    @Test
    @DisplayName("destination settings apply to listeners; an attribute wins over them")
    void destinationSettingsAndOverride() {
        runner.withUserConfiguration(OrderListeners.class)
                .withPropertyValues("app.orders=orders-b", "switchboard.destinations.orders-b.group=ignored-by-attribute")
                .run(context -> {
                    context.getBean(Publishers.class).get("orders-b", Order.class).publish(new Order("o-2", 1))
                            .toCompletableFuture().join();
                    @SuppressWarnings("unchecked")
                    Map<String, Object> got = (Map<String, Object>) context.getBean(Received.class).next();
                    assertThat(got).containsEntry("group", "billing");
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class FailingListener {
        @Bean
        Received received() {
            return new Received();
        }

        @Bean
        Object failing(Received received) {
            return new Object() {
                @SwitchboardListener(destination = "fails-a", group = "g")
                void handle(String payload, DeliveryContext context) {
                    received.items.add("attempt " + context.attempt());
                    throw new IllegalStateException("boom");
                }

                @SwitchboardListener(destination = "fails-a.dlq", group = "audit")
                void deadLetter(Message<String> message) {
                    received.items.add("dead:" + message.payload() + ":" + message.headers().get("sb_error_message") + ":"
                            + message.headers().get("sb_dead_letter_reason"));
                }
            };
        }
    }

    @Test
    @DisplayName("a listener that throws is retried as configured, then the message is dead-lettered")
    void retriesThenDeadLetters() {
        runner.withUserConfiguration(FailingListener.class)
                .withPropertyValues("switchboard.destinations.fails-a.retry.max-attempts=2",
                        "switchboard.destinations.fails-a.retry.initial-backoff=1ms")
                .run(context -> {
                    context.getBean(Publishers.class).get("fails-a", String.class).publish("x").toCompletableFuture().join();
                    Received received = context.getBean(Received.class);
                    assertThat(received.next()).isEqualTo("attempt 1");
                    assertThat(received.next()).isEqualTo("attempt 2");
                    assertThat(received.next()).isEqualTo("dead:x:boom:handler-failed");
                });
    }

    @Test
    @DisplayName("a listener failing with a retry.not-retryable exception is dead-lettered at its first attempt")
    void notRetryableDeadLettersAtOnce() {
        runner.withUserConfiguration(FailingListener.class)
                .withPropertyValues("switchboard.destinations.fails-a.retry.not-retryable=java.lang.IllegalStateException")
                .run(context -> {
                    context.getBean(Publishers.class).get("fails-a", String.class).publish("y").toCompletableFuture().join();
                    Received received = context.getBean(Received.class);
                    assertThat(received.next()).isEqualTo("attempt 1");
                    assertThat(received.next()).isEqualTo("dead:y:boom:non-retryable");
                    assertThat(received.items).as("no second attempt").isEmpty();
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class ShippedListener {
        @Bean
        Received received() {
            return new Received();
        }

        @Bean
        Object shipped(Received received) {
            return new Object() {
                @SwitchboardListener(destination = "shipped-a")
                void handle(Shipped shipped) {
                    received.items.add(shipped);
                }
            };
        }
    }

    @Test
    @DisplayName("with Spring Boot's Jackson 3 JsonMapper, POJOs go through it (java.time works out of the box)")
    void bootJsonMapper() {
        runner.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class))
                .withUserConfiguration(ShippedListener.class).run(context -> {
                    assertThat(context.getBean(CodecResolver.class).codec("shipped-a", Shipped.class).toString())
                            .startsWith("Jackson3JsonCodec");
                    Shipped sent = new Shipped("s-1", Instant.parse("2026-11-22T10:15:30.123456Z"));
                    context.getBean(Publishers.class).get("shipped-a", Shipped.class).publish(sent).toCompletableFuture().join();
                    assertThat(context.getBean(Received.class).next()).isEqualTo(sent);
                });
    }

    @Test
    @DisplayName("switchboard.json.use-boot-mapper=false keeps Switchboard's own Jackson 2 codec")
    void coreJsonMapper() {
        runner.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class))
                .withPropertyValues("switchboard.json.use-boot-mapper=false")
                .run(context -> assertThat(context.getBean(CodecResolver.class).codec("x", Order.class).toString())
                        .startsWith("JsonCodec"));
    }

    @Test
    @DisplayName("draining on shutdown: a handler in flight finishes before the context closes")
    void drainsOnShutdown() {
        Received received = new Received();
        runner.withBean(Received.class, () -> received).withBean("slow", Object.class, () -> new Object() {
            @SwitchboardListener(destination = "slow-a")
            void handle(String payload) throws InterruptedException {
                received.items.add("started");
                Thread.sleep(300);
                received.items.add("finished");
            }
        }).run(context -> {
            context.getBean(Publishers.class).get("slow-a", String.class).publish("x").toCompletableFuture().join();
            assertThat(received.next()).isEqualTo("started");
        });
        assertThat(received.items).as("the handler finished before the context was closed").contains("finished");
    }
}
