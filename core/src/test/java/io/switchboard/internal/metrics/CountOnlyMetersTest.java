package io.switchboard.internal.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.switchboard.Codec;
import io.switchboard.ConfigurationException;
import io.switchboard.Switchboard;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("switchboard.metrics.timers=off: the latency meters only count, under the same names and tags")
class CountOnlyMetersTest {

    @Test
    @DisplayName("publishes, end-to-end records and handler runs are counted; no timer, no max gauge")
    void countsWithoutTimers() throws Exception {
        Map<String, String> props = Map.of("memory.broker", "off-" + UUID.randomUUID(), MetricsSettings.TIMERS, "off");
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Switchboard sb = Switchboard.builder().instance("main", "memory", props).meterRegistry(registry).build()) {
            CountDownLatch handled = new CountDownLatch(3);
            var subscription = sb.subscriber("orders", Codec.bytes()).group("billing")
                    .subscribe((message, context) -> handled.countDown());
            subscription.ready().toCompletableFuture().orTimeout(30, TimeUnit.SECONDS).join();
            var publisher = sb.publisher("orders", Codec.bytes()).build();
            for (int i = 0; i < 3; i++) {
                publisher.publish(new byte[10 + i]).toCompletableFuture().orTimeout(30, TimeUnit.SECONDS).join();
            }
            assertThat(handled.await(30, TimeUnit.SECONDS)).as("3 messages handled within 30 s").isTrue();
            assertThat(registry.get(Meters.PUBLISH).tag("outcome", "success").functionCounter().count()).isEqualTo(3);
            assertThat(registry.get(Meters.PUBLISH_BYTES).functionCounter().count()).isEqualTo(10 + 11 + 12);
            assertThat(registry.get(Meters.CONSUME_LATENCY).tag("group", "billing").functionCounter().count()).isEqualTo(3);
            // the handle count is recorded after the handler returns: wait for the third, with a deadline
            var handle = registry.get(Meters.HANDLE).tag("group", "billing").tag("outcome", "ack").functionCounter();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (handle.count() < 3 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(handle.count()).as("handler runs counted").isEqualTo(3);
            assertThat(registry.find(Meters.PUBLISH).functionTimer()).as("no function timer").isNull();
            assertThat(registry.find(Meters.PUBLISH).timer()).as("no Micrometer Timer").isNull();
            assertThat(registry.find(Meters.PUBLISH + ".max").timeGauge()).as("no max gauge").isNull();
            assertThat(registry.find(Meters.HANDLE + ".max").timeGauge()).as("no max gauge").isNull();
            subscription.close();
            assertThat(registry.find(Meters.HANDLE).functionCounters()).as("a closed subscription's counters removed").isEmpty();
        }
    }

    @Test
    @DisplayName("off with a histogram or SLOs is refused, naming both settings")
    void offWithDistributionRefused() {
        Map<String, String> props = Map.of("memory.broker", "off-" + UUID.randomUUID(), MetricsSettings.TIMERS, "off",
                MetricsSettings.HISTOGRAM, "true");
        assertThatThrownBy(() -> {
            try (Switchboard sb = Switchboard.builder().instance("main", "memory", props)
                    .meterRegistry(new SimpleMeterRegistry()).build()) {
                sb.publisher("orders", Codec.bytes()).build();
            }
        }).isInstanceOf(ConfigurationException.class).hasMessageContaining("'off'")
                .hasMessageContaining(MetricsSettings.HISTOGRAM + "=true").hasMessageContaining("micrometer");
    }
}
