package io.switchboard.internal.resilience;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.switchboard.BackPressureException;
import io.switchboard.CircuitOpenException;
import io.switchboard.PublishException;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.OutboundRecord;
import io.switchboard.spi.RawPublisher;
import io.switchboard.spi.SendResult;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Pure logic: a scripted raw publisher stands in for the broker. */
class ResilientPublisherTest {

    private static final OutboundRecord RECORD = new OutboundRecord("orders", null, Map.of(), new byte[1], 0);

    private final ResilienceRegistries registries = new ResilienceRegistries();

    /** Answers each send with the next scripted outcome; repeats the last one. */
    private static final class Scripted implements RawPublisher {
        final Deque<Supplier<CompletableFuture<SendResult>>> script = new ArrayDeque<>();
        final List<OutboundRecord> calls = new ArrayList<>();
        Supplier<CompletableFuture<SendResult>> last = () -> CompletableFuture.completedFuture(SendResult.UNKNOWN);

        Scripted then(Supplier<CompletableFuture<SendResult>> outcome) {
            script.add(outcome);
            return this;
        }

        @Override
        public CompletableFuture<SendResult> send(OutboundRecord record) {
            calls.add(record);
            if (!script.isEmpty()) {
                last = script.poll();
            }
            return last.get();
        }

        @Override
        public void close() {}
    }

    private static Supplier<CompletableFuture<SendResult>> fail(Throwable t) {
        return () -> CompletableFuture.failedFuture(t);
    }

    private static Supplier<CompletableFuture<SendResult>> ok() {
        return () -> CompletableFuture.completedFuture(new SendResult(0, 1));
    }

    private RawPublisher wrap(RawPublisher raw, String... keyValues) {
        Map<String, String> props = new HashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            props.put(keyValues[i], keyValues[i + 1]);
        }
        BrokerConfig config = new BrokerConfig("kafka-a", "kafka", props);
        return ResilientPublisher.wrap(raw, ResilienceSettings.forDestination(config, "orders"), registries, "kafka-a", "orders");
    }

    @AfterEach
    void close() {
        registries.close();
    }

    @Test
    @DisplayName("adds nothing when nothing is configured")
    void nothingConfigured() {
        Scripted raw = new Scripted();
        assertThat(wrap(raw)).isSameAs(raw);
    }

    @Test
    @DisplayName("opens the circuit after failures and then fails fast, naming instance and state")
    void circuitOpens() {
        Scripted raw = new Scripted().then(fail(new PublishException("broker down")));
        RawPublisher p = wrap(raw, "switchboard.resilience.circuit-breaker.enabled", "true",
                "switchboard.resilience.circuit-breaker.minimum-number-of-calls", "4",
                "switchboard.resilience.circuit-breaker.sliding-window-size", "4",
                "switchboard.resilience.circuit-breaker.wait-duration-in-open-state", "60s");
        for (int i = 0; i < 4; i++) {
            assertThatThrownBy(() -> p.send(RECORD).join()).hasCauseInstanceOf(PublishException.class);
        }
        assertThatThrownBy(() -> p.send(RECORD).join()).isInstanceOf(CompletionException.class)
                .hasCauseInstanceOf(CircuitOpenException.class)
                .hasMessageContaining("kafka-a").hasMessageContaining("OPEN");
        assertThat(raw.calls).hasSize(4);
        assertThat(registries.circuitBreakers().circuitBreaker("kafka-a").getState()).isEqualTo(CircuitBreaker.State.OPEN);
    }

    @Test
    @DisplayName("closes the circuit again once the broker answers")
    void circuitCloses() {
        Scripted raw = new Scripted().then(fail(new PublishException("down"))).then(fail(new PublishException("down")))
                .then(ok());
        RawPublisher p = wrap(raw, "switchboard.resilience.circuit-breaker.enabled", "true",
                "switchboard.resilience.circuit-breaker.minimum-number-of-calls", "2",
                "switchboard.resilience.circuit-breaker.sliding-window-size", "2",
                "switchboard.resilience.circuit-breaker.permitted-calls-in-half-open-state", "1",
                "switchboard.resilience.circuit-breaker.wait-duration-in-open-state", "60s");
        p.send(RECORD).exceptionally(t -> null).join();
        p.send(RECORD).exceptionally(t -> null).join();
        CircuitBreaker cb = registries.circuitBreakers().circuitBreaker("kafka-a");
        assertThat(cb.getState()).isEqualTo(CircuitBreaker.State.OPEN);
        cb.transitionToHalfOpenState();
        assertThat(p.send(RECORD).join()).isEqualTo(new SendResult(0, 1));
        assertThat(cb.getState()).isEqualTo(CircuitBreaker.State.CLOSED);
    }

    @Test
    @DisplayName("retries retriable failures with backoff until success")
    void retriesRetriable() {
        Scripted raw = new Scripted().then(fail(new TimeoutException("slow"))).then(fail(new BackPressureException("full")))
                .then(ok());
        RawPublisher p = wrap(raw, "switchboard.resilience.retry.max-attempts", "3",
                "switchboard.resilience.retry.initial-backoff", "5ms");
        assertThat(p.send(RECORD).join()).isEqualTo(new SendResult(0, 1));
        assertThat(raw.calls).hasSize(3);
    }

    @Test
    @DisplayName("does not retry a failure that is not retriable")
    void noRetryForRejection() {
        Scripted raw = new Scripted().then(fail(new PublishException("unroutable")));
        RawPublisher p = wrap(raw, "switchboard.resilience.retry.max-attempts", "5",
                "switchboard.resilience.retry.initial-backoff", "5ms");
        assertThatThrownBy(() -> p.send(RECORD).join()).hasCauseInstanceOf(PublishException.class);
        assertThat(raw.calls).hasSize(1);
    }

    @Test
    @DisplayName("fails a send the broker does not acknowledge in time")
    void timeLimit() {
        Scripted raw = new Scripted().then(CompletableFuture::new);
        RawPublisher p = wrap(raw, "switchboard.resilience.timeout", "50ms");
        assertThatThrownBy(() -> p.send(RECORD).join()).hasCauseInstanceOf(PublishException.class)
                .hasMessageContaining("did not acknowledge");
    }

    @Test
    @DisplayName("refuses a send beyond the bulkhead and admits again after acknowledgement")
    void bulkhead() {
        CompletableFuture<SendResult> pending = new CompletableFuture<>();
        Scripted raw = new Scripted().then(() -> pending).then(ok());
        RawPublisher p = wrap(raw, "switchboard.resilience.bulkhead.max-concurrent", "1");
        CompletableFuture<SendResult> first = p.send(RECORD);
        assertThatThrownBy(() -> p.send(RECORD).join()).hasCauseInstanceOf(BackPressureException.class)
                .hasMessageContaining("Bulkhead");
        pending.complete(SendResult.UNKNOWN);
        first.join();
        assertThat(p.send(RECORD).join()).isEqualTo(new SendResult(0, 1));
    }

    @Test
    @DisplayName("records an acknowledgement that comes after the send as one that came within it")
    void lateAcknowledgement() {
        CompletableFuture<SendResult> later = new CompletableFuture<>();
        Scripted raw = new Scripted().then(() -> later).then(ok());
        RawPublisher p = wrap(raw, "switchboard.resilience.circuit-breaker.enabled", "true",
                "switchboard.resilience.retry.max-attempts", "3", "switchboard.resilience.bulkhead.max-concurrent", "1");
        CompletableFuture<SendResult> first = p.send(RECORD);
        assertThat(first).isNotDone().isNotSameAs(later);
        later.complete(new SendResult(2, 9));
        assertThat(first.join()).isEqualTo(new SendResult(2, 9));
        // within the send: the adapter's own future, no future of this layer's
        CompletableFuture<SendResult> second = p.send(RECORD);
        assertThat(second.join()).isEqualTo(new SendResult(0, 1));
        CircuitBreaker.Metrics metrics = registries.circuitBreakers().circuitBreaker("kafka-a").getMetrics();
        assertThat(metrics.getNumberOfSuccessfulCalls()).isEqualTo(2);
        assertThat(p.send(RECORD).join()).isEqualTo(new SendResult(0, 1)); // the bulkhead's permits came back both ways
    }

    @Test
    @DisplayName("retries a failure that comes after the send")
    void lateFailureRetried() {
        CompletableFuture<SendResult> later = new CompletableFuture<>();
        Scripted raw = new Scripted().then(() -> later).then(ok());
        RawPublisher p = wrap(raw, "switchboard.resilience.retry.max-attempts", "3",
                "switchboard.resilience.retry.initial-backoff", "5ms");
        CompletableFuture<SendResult> result = p.send(RECORD);
        later.completeExceptionally(new BackPressureException("full"));
        assertThat(result.join()).isEqualTo(new SendResult(0, 1));
        assertThat(raw.calls).hasSize(2);
    }

    @Test
    @DisplayName("exports circuit-breaker state as meters")
    void meters() {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        registries.bindTo(meters);
        wrap(new Scripted(), "switchboard.resilience.circuit-breaker.enabled", "true").send(RECORD).join();
        assertThat(meters.find("resilience4j.circuitbreaker.state").tag("name", "kafka-a").gauges()).isNotEmpty();
    }

    @Test
    @DisplayName("lets a destination override the instance-wide settings")
    void perDestination() {
        BrokerConfig config = new BrokerConfig("kafka-a", "kafka", Map.of("switchboard.resilience.retry.max-attempts", "2",
                "switchboard.destination.orders.resilience.retry.max-attempts", "4"));
        assertThat(ResilienceSettings.forDestination(config, "orders").retryAttempts()).isEqualTo(4);
        assertThat(ResilienceSettings.forDestination(config, "payments").retryAttempts()).isEqualTo(2);
    }
}
