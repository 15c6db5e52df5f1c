package io.switchboard.internal.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.RetryPolicy;
import io.switchboard.Switchboard;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
@DisplayName("a non-retryable failure counts as a dead letter with reason non-retryable")
class NonRetryableMetersTest {

    @Test
    @DisplayName("switchboard.dead.letters{reason=non-retryable} and switchboard.handle{outcome=dead_letter} count it once")
    void countedAsDeadLetter() {
        Map<String, String> props = Map.of("memory.broker", "nr-" + UUID.randomUUID());
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Switchboard sb = Switchboard.builder().instance("main", "memory", props).meterRegistry(registry).build()) {
            AtomicInteger attempts = new AtomicInteger();
            AtomicInteger deadLetters = new AtomicInteger();
            var dlq = sb.subscriber("orders.dlq", Codec.utf8()).group("dlq-reader")
                    .subscribe((message, context) -> deadLetters.incrementAndGet());
            var subscription = sb.subscriber("orders", Codec.utf8()).group("billing").delivery(Delivery.AT_LEAST_ONCE)
                    .retry(RetryPolicy.fixed(3, Duration.ofMillis(5)).notRetrying(IllegalArgumentException.class))
                    .subscribe((message, context) -> {
                        attempts.incrementAndGet();
                        throw new IllegalArgumentException("no lines");
                    });
            dlq.ready().toCompletableFuture().orTimeout(30, TimeUnit.SECONDS).join();
            subscription.ready().toCompletableFuture().orTimeout(30, TimeUnit.SECONDS).join();
            sb.publisher("orders", Codec.utf8()).build().publish("invalid").toCompletableFuture().orTimeout(30, TimeUnit.SECONDS)
                    .join();
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                assertThat(deadLetters).hasValue(1);
                assertThat(registry.get(Meters.DEAD_LETTERS).tags("group", "billing", "reason", "non-retryable").counter()
                        .count()).isEqualTo(1.0);
            });
            assertThat(attempts).hasValue(1);
            assertThat(registry.get(Meters.DEAD_LETTERS).tags("group", "billing", "reason", "handler-failed").counter().count())
                    .isZero();
            assertThat(registry.get(Meters.HANDLE).tags("group", "billing", "outcome", "dead_letter").timer().count())
                    .isEqualTo(1);
            assertThat(registry.find(Meters.HANDLE).tags("group", "billing", "outcome", "retry").timer().count()).isZero();
        }
    }
}
