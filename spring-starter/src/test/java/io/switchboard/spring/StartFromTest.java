package io.switchboard.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.Codec;
import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.Switchboard;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@DisplayName("Where a listener starts: start-from and @SwitchboardListener(startFrom), on the in-memory broker")
@Timeout(60)
class StartFromTest {

    static final class Sink {
        final Queue<String> ledger = new ConcurrentLinkedQueue<>();
        final Queue<String> audit = new ConcurrentLinkedQueue<>();

        @SwitchboardListener(destination = "ledger", group = "late")    // start-from in application properties
        void ledger(String entry) {
            ledger.add(entry);
        }

        // tag::spring-start-from[]
        @SwitchboardListener(destination = "audit", group = "replay", startFrom = "${audit.start:earliest}")
        void audit(String entry) {
            audit.add(entry);
        }
        // end::spring-start-from[]
    }

    @Configuration(proxyBeanMethods = false)
    static class Listeners {
        @Bean
        Sink sink() {
            return new Sink();
        }
    }

    private static void publish(Switchboard sb, String destination, String... payloads) {
        Publisher<String> publisher = sb.publisher(destination, Codec.utf8()).build();
        for (String payload : payloads) {
            publisher.publish(Message.builder(payload).key("k").build()).toCompletableFuture().join();
        }
    }

    @Test
    @DisplayName("start-from=latest skips what came before; startFrom with a placeholder starts at its offset")
    void startsWhereAsked() {
        String broker = "start-from-" + UUID.randomUUID();
        try (Switchboard before = Switchboard.builder().broker("memory").property("memory.broker", broker).build()) {
            publish(before, "ledger", "old-0", "old-1", "old-2");
            publish(before, "audit", "old-0", "old-1", "old-2");
            new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(SwitchboardAutoConfiguration.class))
                    .withPropertyValues("switchboard.properties.[memory.broker]=" + broker,
                            "switchboard.destinations.ledger.start-from=latest", "audit.start=offset:1")
                    .withUserConfiguration(Listeners.class).run(context -> {
                        assertThat(context).hasNotFailed();
                        Publishers publishers = context.getBean(Publishers.class);
                        publishers.get("ledger", String.class).publish(Message.builder("new").key("k").build())
                                .toCompletableFuture().join();
                        publishers.get("audit", String.class).publish(Message.builder("new").key("k").build())
                                .toCompletableFuture().join();
                        Sink sink = context.getBean(Sink.class);
                        await().atMost(Duration.ofSeconds(20)).until(() -> !sink.ledger.isEmpty() && sink.audit.size() >= 3);
                        assertThat(sink.ledger).as("latest").containsExactly("new");
                        assertThat(sink.audit).as("from offset 1").containsExactlyElementsOf(List.of("old-1", "old-2", "new"));
                    });
        }
    }

    @Test
    @DisplayName("a start-from or startFrom that is no position fails startup, naming the value and the forms")
    void badValues() {
        ApplicationContextRunner runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(SwitchboardAutoConfiguration.class))
                .withPropertyValues("switchboard.properties.[memory.broker]=start-from-bad-" + UUID.randomUUID())
                .withUserConfiguration(Listeners.class);
        runner.withPropertyValues("switchboard.destinations.ledger.start-from=yesterday").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasStackTraceContaining("switchboard.destinations.ledger.start-from")
                    .hasStackTraceContaining("'yesterday'").hasStackTraceContaining("offset:<n>");
        });
        runner.withPropertyValues("audit.start=offset:-3").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasStackTraceContaining("Sink.audit")
                    .hasStackTraceContaining("'offset:-3'").hasStackTraceContaining("time:<ISO-8601 instant>");
        });
    }
}
