package io.switchboard.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.Batch;
import io.switchboard.Message;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@DisplayName("Batch listener methods, on the in-memory broker")
@Timeout(60)
class BatchListenerTest {

    static final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SwitchboardAutoConfiguration.class))
            .withPropertyValues("switchboard.properties.[memory.broker]=batch-listener-test",
                    "switchboard.destinations.readings.batch-size=25",
                    "switchboard.destinations.readings.batch-wait=200ms",
                    "switchboard.destinations.invoices.retry.max-attempts=2",
                    "switchboard.destinations.invoices.retry.initial-backoff=10ms");

    static final class Sink {
        final Queue<Integer> sizes = new ConcurrentLinkedQueue<>();
        final Queue<String> stored = new ConcurrentLinkedQueue<>();
        final Queue<String> dead = new ConcurrentLinkedQueue<>();

        // tag::spring-batch-listener[]
        @SwitchboardListener(destination = "readings", group = "store")
        void store(List<String> readings) {                   // a batch: up to batch-size payloads
            sizes.add(readings.size());
            stored.addAll(readings);
        }

        @SwitchboardListener(destination = "invoices", group = "billing")
        void bill(Batch<String> invoices) {                   // per message: mark the failed ones
            for (int i = 0; i < invoices.size(); i++) {
                if (invoices.messages().get(i).payload().startsWith("bad")) {
                    invoices.fail(i, new IllegalArgumentException("no such customer"));
                }
            }
        }
        // end::spring-batch-listener[]

        @SwitchboardListener(destination = "invoices.dlq", group = "audit")
        void dead(Message<String> message) {
            dead.add(message.payload());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Listeners {
        @Bean
        Sink sink() {
            return new Sink();
        }
    }

    @Test
    @DisplayName("List<T> gets batches within batch-size; Batch<T> dead-letters the message it marks failed")
    void batches() {
        runner.withUserConfiguration(Listeners.class).run(context -> {
            assertThat(context).hasNotFailed();
            Publishers publishers = context.getBean(Publishers.class);
            List<Message<String>> readings = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                readings.add(Message.of("r" + i));
            }
            publishers.get("readings", String.class).publishAll(readings).toCompletableFuture().join();
            publishers.get("invoices", String.class).publishAll(List.of(Message.of("ok-1"), Message.of("bad-2"),
                    Message.of("ok-3"))).toCompletableFuture().join();
            Sink sink = context.getBean(Sink.class);
            await().atMost(Duration.ofSeconds(20)).until(() -> sink.stored.size() >= 100 && !sink.dead.isEmpty());
            assertThat(sink.sizes).allSatisfy(n -> assertThat(n).isBetween(1, 25));
            assertThat(sink.sizes.stream().mapToInt(Integer::intValue).max().orElse(0)).isGreaterThan(1);
            assertThat(sink.dead).containsExactly("bad-2");
        });
    }
}
