package io.switchboard.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.switchboard.Delivery;
import io.switchboard.Message;
import io.switchboard.PublishReceipt;
import io.switchboard.Publisher;
import io.switchboard.RetryPolicy;
import io.switchboard.Switchboard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The contract's "Metrics" cases; {@link BrokerContract} runs them as a nested group. */
abstract class MetricsCases extends ContractCases {

    MetricsCases(ContractSupport contract) {
        super(contract);
    }

    @Test
    @DisplayName("count exactly what happened: 1,000 published, 999 acked, 3 retried, 1 dead-lettered")
    void exactCounts() {
        MeterRegistry registry = new SimpleMeterRegistry();
        Switchboard sb = newSwitchboard(b -> b.meterRegistry(registry));
        String dest = destination();
        Recorder<String> dead = recorder();
        subscribe(sb, deadLetterOf(dest), TEXT, b -> b.group("dlq-reader"), dead);
        Recorder<String> rec = new Recorder<>(timeout(), r -> r.message().payload().equals("m7")
                || (r.message().payload().equals("m8") && r.context().attempt() == 1));
        subscribe(sb, dest, TEXT, b -> b.group("g").concurrency(2).retry(RetryPolicy.fixed(3, Duration.ofMillis(5))), rec);
        Publisher<String> pub = sb.publisher(dest, TEXT).delivery(Delivery.AT_LEAST_ONCE).build();
        List<CompletableFuture<PublishReceipt>> sent = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            sent.add(pub.publish(Message.of("k" + (i % 10), "m" + i)).toCompletableFuture());
        }
        join(CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)));
        rec.awaitCount(999);
        dead.awaitCount(1);

        String broker = sb.brokerId();
        double payloadBytes = 0;
        for (int i = 0; i < 1000; i++) {
            payloadBytes += ("m" + i).length();
        }
        double expectedBytes = payloadBytes;
        await().atMost(timeout()).untilAsserted(() -> {
            // read the Micrometer way, as an application's dashboards and tests do: Timers, a byte counter
            assertThat(registry.find("switchboard.publish").tag("broker", broker).timers()).as("publish timers of " + broker)
                    .isNotEmpty();
            Timer published = registry.get("switchboard.publish").tags("broker", broker, "instance", sb.instanceName(),
                    "destination", dest, "outcome", "success").timer();
            assertThat(published.count()).isEqualTo(1000);
            assertThat(published.max(TimeUnit.NANOSECONDS)).as("largest publish latency").isPositive();
            assertThat(registry.get("switchboard.publish.bytes").tags("destination", dest).functionCounter().count())
                    .as("payload bytes of m0 to m999").isEqualTo(expectedBytes);
            assertThat(registry.get("switchboard.handle").tags("destination", dest, "group", "g", "outcome", "ack")
                    .timer().count()).isEqualTo(999);
            assertThat(registry.get("switchboard.handle").tags("destination", dest, "group", "g", "outcome", "retry")
                    .timer().count()).isEqualTo(3);
            assertThat(registry.get("switchboard.handle").tags("destination", dest, "group", "g", "outcome", "dead_letter")
                    .timer().count()).isEqualTo(1);
            assertThat(registry.get("switchboard.dead.letters").tags("destination", dest, "group", "g", "reason", "handler-failed")
                    .counter().count()).isEqualTo(1.0);
            assertThat(registry.get("switchboard.consume.latency").tags("broker", broker, "instance", sb.instanceName(),
                    "destination", dest, "group", "g").timer().count()).isEqualTo(1000);
            assertThat(registry.get("switchboard.inflight").tags("destination", dest, "group", "g").gauge().value())
                    .isZero();
        });
        assertThat(registry.find("switchboard.publish.max").meter()).as("a Timer's max is its own statistic").isNull();
    }
}
