package io.switchboard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.DeliveryContext;
import io.switchboard.Message;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@DisplayName("Listener methods that return a CompletionStage, on the in-memory broker")
@Timeout(60)
class AsyncListenerTest {

    static final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SwitchboardAutoConfiguration.class))
            .withPropertyValues("switchboard.properties.[memory.broker]=async-listener-test",
                    "switchboard.destinations.jobs-a.retry.max-attempts=2",
                    "switchboard.destinations.jobs-a.retry.initial-backoff=10ms",
                    "switchboard.destinations.jobs-a.handler-timeout=10s");

    static final class Received {
        final BlockingQueue<String> items = new LinkedBlockingQueue<>();

        String next() throws InterruptedException {
            String item = items.poll(10, TimeUnit.SECONDS);
            assertThat(item).as("an item within 10 s").isNotNull();
            return item;
        }
    }

    static class Jobs {
        private final Received received;
        private final ExecutorService pool = Executors.newSingleThreadExecutor();

        Jobs(Received received) {
            this.received = received;
        }

        @SwitchboardListener(destination = "jobs-a", group = "workers")
        CompletionStage<Void> run(String job, DeliveryContext context) {
            return CompletableFuture.runAsync(() -> {
                received.items.add("attempt " + context.attempt() + " of " + job + " on " + Thread.currentThread().getName()
                        .startsWith("pool"));
                if (job.startsWith("fail")) {
                    throw new IllegalStateException("job " + job + " failed");
                }
            }, pool);
        }

        @SwitchboardListener(destination = "jobs-a.dlq", group = "audit")
        void dead(Message<String> message) {
            received.items.add("dead:" + message.payload() + ":" + message.headers().get("sb_error_type"));
        }

        void close() {
            pool.shutdownNow();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Listeners {
        @Bean
        Received received() {
            return new Received();
        }

        @Bean(destroyMethod = "close")
        Jobs jobs(Received received) {
            return new Jobs(received);
        }
    }

    @Test
    @DisplayName("a completed stage acknowledges; an exceptionally completed one is retried, then dead-lettered")
    void completesLater() {
        runner.withUserConfiguration(Listeners.class).run(context -> {
            assertThat(context).hasNotFailed();
            Received received = context.getBean(Received.class);
            context.getBean(Publishers.class).get("jobs-a", String.class).publish("ok-1").toCompletableFuture().join();
            assertThat(received.next()).isEqualTo("attempt 1 of ok-1 on true");
            context.getBean(Publishers.class).get("jobs-a", String.class).publish("fail-1").toCompletableFuture().join();
            assertThat(received.next()).isEqualTo("attempt 1 of fail-1 on true");
            assertThat(received.next()).isEqualTo("attempt 2 of fail-1 on true");
            assertThat(received.next()).isEqualTo("dead:fail-1:" + IllegalStateException.class.getName());
            assertThat(received.items.poll(300, TimeUnit.MILLISECONDS)).as("no redelivery of the acknowledged job").isNull();
        });
    }
}
