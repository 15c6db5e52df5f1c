package io.switchboard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.DeliveryContext;
import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.Switchboard;
import io.switchboard.TypedCodec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@DisplayName("A class listener with one handler method per payload type, on the in-memory broker")
@Timeout(60)
class TypedListenerTest {

    static final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SwitchboardAutoConfiguration.class))
            .withPropertyValues("switchboard.properties.[memory.broker]=typed-listener-test",
                    "switchboard.destinations.orders-t.type-header=__TypeId__");

    /** One payload type. */
    public record Placed(String id, long cents) {}

    /** Another, under a type id of its own. */
    public record Cancelled(String id, String reason) {}

    /** A type the listener has no method for. */
    public record Refunded(String id) {}

    static final class Received {
        final BlockingQueue<String> items = new LinkedBlockingQueue<>();

        List<String> next(int n) throws InterruptedException {
            List<String> got = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                String item = items.poll(10, TimeUnit.SECONDS);
                assertThat(item).as("message %d of %d within 10 s (got %s)", i + 1, n, got).isNotNull();
                got.add(item);
            }
            return got;
        }
    }

    // tag::class-listener[]
    @SwitchboardListener(destination = "orders-t", group = "billing")
    static class Billing {
        private final Received received;

        Billing(Received received) {
            this.received = received;
        }

        @SwitchboardHandler // type id: the class name, as Spring's JsonSerializer writes it
        void placed(Placed order, DeliveryContext context) {
            received.items.add("placed:" + order.id() + ":" + context.group());
        }

        @SwitchboardHandler(typeId = "order-cancelled") // a token of Spring's type mapping
        void cancelled(Message<Cancelled> message) {
            received.items.add("cancelled:" + message.payload().id() + ":" + message.headers().get("__TypeId__"));
        }

        @SwitchboardHandler(isDefault = true) // any other type id, as received
        void other(Message<byte[]> message) {
            received.items.add("other:" + message.headers().get("__TypeId__") + ":"
                    + new String(message.payload(), StandardCharsets.UTF_8));
        }
    }
    // end::class-listener[]

    @Configuration(proxyBeanMethods = false)
    static class Listeners {
        @Bean
        Received received() {
            return new Received();
        }

        @Bean
        Billing billing(Received received) {
            return new Billing(received);
        }
    }

    @Test
    @DisplayName("each type reaches its method; a type without one reaches the default; publishers write the type id")
    void dispatchesByTypeId() {
        runner.withUserConfiguration(Listeners.class).run(context -> {
            assertThat(context).hasNotFailed();
            Publishers publishers = context.getBean(Publishers.class);
            // an injected publisher of one type writes its class name, as Spring's JsonSerializer does
            publishers.get("orders-t", Placed.class).publish(new Placed("p1", 100)).toCompletableFuture().join();
            // a publisher of several types, with a type mapping of its own
            Publisher<Object> mixed = context.getBean(Switchboard.class).publisher("orders-t",
                    TypedCodec.json().type("order-cancelled", Cancelled.class).build()).build();
            mixed.publish(new Cancelled("c1", "late")).toCompletableFuture().join();
            mixed.publish(new Refunded("r1")).toCompletableFuture().join();
            assertThat(context.getBean(Received.class).next(3)).containsExactlyInAnyOrder("placed:p1:billing",
                    "cancelled:c1:order-cancelled", "other:" + Refunded.class.getName() + ":{\"id\":\"r1\"}");
        });
    }

    @SwitchboardListener(destination = "orders-u")
    static class TwoDefaults {
        @SwitchboardHandler(isDefault = true)
        void one(byte[] payload) {}

        @SwitchboardHandler(isDefault = true)
        void two(byte[] payload) {}
    }

    @SwitchboardListener(destination = "orders-v")
    static class NoHandlers {
        void notAHandler(Placed placed) {}
    }

    @Test
    @DisplayName("a class listener with two defaults, or no handler method, fails startup naming the class")
    void malformedClassListeners() {
        runner.withBean(TwoDefaults.class).run(context -> assertThat(context).hasFailed().getFailure()
                .rootCause().hasMessageContaining("TwoDefaults").hasMessageContaining("second default handler"));
        runner.withBean(NoHandlers.class).run(context -> assertThat(context).hasFailed().getFailure()
                .rootCause().hasMessageContaining("NoHandlers").hasMessageContaining("@SwitchboardHandler"));
    }
}
