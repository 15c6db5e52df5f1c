package io.switchboard.internal.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.switchboard.Codec;
import io.switchboard.Switchboard;
import io.switchboard.Message;
import io.switchboard.Publisher;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The reads docs/metrics.md shows, run against Micrometer timers on the memory broker. */
@DisplayName("docs/metrics.md: the meters read the Micrometer way")
class MetricsDocSnippetTest {

    @Test
    @DisplayName("publish and consume timers and the size summary are found by name and tags")
    void readsTheMicrometerWay() throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        Switchboard sb = Switchboard.builder().broker("memory").property("memory.broker", "doc-" + UUID.randomUUID())
                .property(MetricsSettings.TIMERS, "micrometer").build();
        try (sb) {
            sb.bindTo(registry);                                            // as a MeterBinder, before publishers and subscriptions
            List<String> received = new CopyOnWriteArrayList<>();
            sb.subscriber("orders", Codec.utf8()).group("billing").subscribe((m, c) -> received.add(m.payload()))
                    .ready().toCompletableFuture().get(30, TimeUnit.SECONDS);
            Publisher<String> orders = sb.publisher("orders", Codec.utf8()).build();
            for (String order : List.of("a".repeat(100), "b".repeat(100), "c".repeat(100))) {
                orders.publish(Message.of("customer-1", order)).toCompletableFuture().get(30, TimeUnit.SECONDS);
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (received.size() < 3 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(received).as("the 3 orders received within 30 s").hasSize(3);

            // tag::metrics-read[]
            Collection<Timer> publishes = registry.find("switchboard.publish").tag("broker", "memory").timers();
            Timer endToEnd = registry.get("switchboard.consume.latency")
                    .tag("broker", "memory").tag("destination", "orders").tag("group", "billing").timer();
            FunctionCounter bytes = registry.get("switchboard.publish.bytes").tag("destination", "orders").functionCounter();
            long published = publishes.stream().mapToLong(Timer::count).sum();
            double maxSeconds = endToEnd.max(TimeUnit.SECONDS);
            double meanBytes = bytes.count() / published;
            // end::metrics-read[]

            assertThat(publishes).as("one timer per outcome that occurred").isNotEmpty();
            assertThat(published).isEqualTo(3);
            assertThat(endToEnd.count()).isEqualTo(3);
            assertThat(maxSeconds).isGreaterThanOrEqualTo(0);
            assertThat(meanBytes).isEqualTo(100);
        }
    }
}
