package io.switchboard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.DeliveryContext;
import java.util.HashSet;
import java.util.Set;
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

@DisplayName("One listener method on several destinations, on the in-memory broker")
@Timeout(60)
class SeveralDestinationsListenerTest {

    static final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SwitchboardAutoConfiguration.class))
            .withPropertyValues("switchboard.properties.[memory.broker]=several-destinations-test",
                    "app.more-topics=audit-b, audit-c");

    static final class Audit {
        final BlockingQueue<String> seen = new LinkedBlockingQueue<>();

        // tag::several-destinations[]
        @SwitchboardListener(destination = {"audit-a", "${app.more-topics}"}, group = "audit")
        void record(String entry, DeliveryContext context) {   // one subscription per destination
            seen.add(context.destination() + ":" + entry);
        }
        // end::several-destinations[]
    }

    static final class Twice {
        @SwitchboardListener(destination = {"audit-a", "audit-a"})
        void record(String entry) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Listeners {
        @Bean
        Audit audit() {
            return new Audit();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TwiceListeners {
        @Bean
        Twice twice() {
            return new Twice();
        }
    }

    @Test
    @DisplayName("destinations named in the annotation and in a comma-separated placeholder each get a subscription")
    void eachDestinationSubscribed() {
        runner.withUserConfiguration(Listeners.class).run(context -> {
            assertThat(context).hasNotFailed();
            Publishers publishers = context.getBean(Publishers.class);
            for (String d : new String[] {"audit-a", "audit-b", "audit-c"}) {
                publishers.get(d, String.class).publish("entry").toCompletableFuture().get(10, TimeUnit.SECONDS);
            }
            Audit audit = context.getBean(Audit.class);
            Set<String> seen = new HashSet<>();
            for (int i = 0; i < 3; i++) {
                String item = audit.seen.poll(10, TimeUnit.SECONDS);
                assertThat(item).as("message %d of 3 within 10 s", i + 1).isNotNull();
                seen.add(item);
            }
            assertThat(seen).containsExactlyInAnyOrder("audit-a:entry", "audit-b:entry", "audit-c:entry");
        });
    }

    @Test
    @DisplayName("a destination named twice fails startup naming the method and the destination")
    void duplicateRefused() {
        runner.withUserConfiguration(TwiceListeners.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("Twice.record(String)")
                    .hasMessageContaining("'audit-a' twice");
        });
    }
}
