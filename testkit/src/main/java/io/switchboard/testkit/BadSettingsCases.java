package io.switchboard.testkit;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.switchboard.ConfigurationException;
import io.switchboard.Delivery;
import io.switchboard.RetryPolicy;
import io.switchboard.Switchboard;
import io.switchboard.routing.Route;
import java.time.Duration;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The contract's "Bad input: settings" cases: zero, negative, absurd and malformed settings of
 * subscriptions, retry policies, properties, instances and routes fail with a
 * {@link ConfigurationException} that names the setting, the bad value and a good one, at build
 * time, before any message is accepted.
 */
abstract class BadSettingsCases extends ContractCases {

    BadSettingsCases(ContractSupport contract) {
        super(contract);
    }

    @Test
    @DisplayName("a concurrency of 0 is refused")
    void zeroConcurrency() {
        assertThatThrownBy(() -> switchboard().subscriber(destination(), TEXT).concurrency(0))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("concurrency").hasMessageContaining("was 0");
    }

    @Test
    @DisplayName("an absurd concurrency (100,000 threads) is refused, naming the maximum")
    void absurdConcurrency() {
        assertThatThrownBy(() -> switchboard().subscriber(destination(), TEXT).concurrency(100_000))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("100000").hasMessageContaining("1024");
    }

    @Test
    @DisplayName("a negative maxInFlight is refused")
    void negativeMaxInFlight() {
        assertThatThrownBy(() -> switchboard().subscriber(destination(), TEXT).maxInFlight(-5))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("maxInFlight").hasMessageContaining("-5");
    }

    @Test
    @DisplayName("an absurd maxInFlight (ten million) is refused")
    void absurdMaxInFlight() {
        assertThatThrownBy(() -> switchboard().subscriber(destination(), TEXT).maxInFlight(10_000_000))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("10000000");
    }

    @Test
    @DisplayName("a negative drain timeout is refused")
    void negativeDrainTimeout() {
        assertThatThrownBy(() -> switchboard().subscriber(destination(), TEXT).drainTimeout(Duration.ofSeconds(-3)))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("drainTimeout").hasMessageContaining("PT-3S");
    }

    @Test
    @DisplayName("a handler timeout of zero is refused")
    void zeroHandlerTimeout() {
        assertThatThrownBy(() -> switchboard().subscriber(destination(), TEXT).handlerTimeout(Duration.ZERO))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("handlerTimeout").hasMessageContaining("PT0S");
    }

    @Test
    @DisplayName("a retry policy with 0 attempts is refused")
    void zeroAttempts() {
        assertThatThrownBy(() -> RetryPolicy.fixed(0, Duration.ofMillis(10)))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("maxAttempts").hasMessageContaining("0");
    }

    @Test
    @DisplayName("a retry policy with a negative backoff is refused")
    void negativeBackoff() {
        assertThatThrownBy(() -> RetryPolicy.fixed(3, Duration.ofMillis(-10)))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("initialBackoff");
    }

    @Test
    @DisplayName("a retry policy whose multiplier shrinks the backoff is refused")
    void shrinkingMultiplier() {
        assertThatThrownBy(() -> new RetryPolicy(3, Duration.ofMillis(10), 0.5, Duration.ofSeconds(1), 0.1))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("multiplier").hasMessageContaining("0.5");
    }

    @Test
    @DisplayName("a retry policy with a jitter over 1 is refused")
    void jitterOverOne() {
        assertThatThrownBy(() -> new RetryPolicy(3, Duration.ofMillis(10), 2.0, Duration.ofSeconds(1), 2.0))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("jitter").hasMessageContaining("2.0");
    }

    @Test
    @DisplayName("switchboard.partitions=0 is refused when the destination is provisioned")
    void zeroPartitions() {
        refusedOnFirstPublisher(b -> b.property("switchboard.partitions", "0"))
                .hasMessageContaining("switchboard.partitions").hasMessageContaining("0");
    }

    @Test
    @DisplayName("a circuit breaker failure-rate threshold of 150% is refused")
    void failureRateOver100() {
        refusedOnFirstPublisher(b -> b.property("switchboard.resilience.circuit-breaker.enabled", "true")
                .property("switchboard.resilience.circuit-breaker.failure-rate-threshold", "150"))
                .hasMessageContaining("failure-rate-threshold").hasMessageContaining("150").hasMessageContaining("100");
    }

    @Test
    @DisplayName("a publish timeout that is not a duration is refused")
    void malformedTimeout() {
        refusedOnFirstPublisher(b -> b.property("switchboard.resilience.timeout", "soon"))
                .hasMessageContaining("switchboard.resilience.timeout").hasMessageContaining("soon");
    }

    @Test
    @DisplayName("a negative publish timeout is refused")
    void negativeTimeout() {
        refusedOnFirstPublisher(b -> b.property("switchboard.resilience.timeout", "-1s"))
                .hasMessageContaining("switchboard.resilience.timeout").hasMessageContaining("positive");
    }

    @Test
    @DisplayName("publish retries of 0 attempts are refused")
    void zeroPublishAttempts() {
        refusedOnFirstPublisher(b -> b.property("switchboard.resilience.retry.max-attempts", "0"))
                .hasMessageContaining("retry.max-attempts").hasMessageContaining("0");
    }

    @Test
    @DisplayName("a negative rate limit is refused")
    void negativeRateLimit() {
        refusedOnFirstPublisher(b -> b.property("switchboard.resilience.rate-limit", "-100"))
                .hasMessageContaining("rate-limit").hasMessageContaining("-100");
    }

    @Test
    @DisplayName("SLO buckets that are not durations are refused at build")
    void malformedSlo() {
        assertThatThrownBy(() -> build(b -> b.property("switchboard.metrics.slo", "fast,1ms")))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("switchboard.metrics.slo")
                .hasMessageContaining("fast");
    }

    @Test
    @DisplayName("a comparison window of two hours is refused, naming the range")
    void absurdComparisonWindow() {
        assertThatThrownBy(() -> Switchboard.builder().instance("a", brokerId(), brokerProperties())
                .property("switchboard.comparison.window", "2h").build())
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("switchboard.comparison.window")
                .hasMessageContaining("1h");
    }

    @Test
    @DisplayName("an instance name with a space is refused")
    void badInstanceName() {
        assertThatThrownBy(() -> Switchboard.builder().instance("broker a", brokerId(), brokerProperties()))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("'broker a'");
    }

    @Test
    @DisplayName("an instance defined twice is refused")
    void instanceTwice() {
        assertThatThrownBy(() -> Switchboard.builder().instance("a", brokerId(), brokerProperties())
                .instance("a", brokerId(), brokerProperties()))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("'a'").hasMessageContaining("twice");
    }

    @Test
    @DisplayName("broker(..) and instance(..) together are refused")
    void brokerAndInstances() {
        assertThatThrownBy(() -> Switchboard.builder().broker(brokerId()).instance("a", brokerId(), brokerProperties()).build())
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("not both");
    }

    @Test
    @DisplayName("a builder with no broker is refused, listing the brokers on the classpath")
    void noBroker() {
        assertThatThrownBy(() -> Switchboard.builder().build())
                .isInstanceOf(ConfigurationException.class).hasMessageContaining(brokerId());
    }

    @Test
    @DisplayName("a route naming an unknown instance is refused, listing the instances")
    void routeToUnknownInstance() {
        assertThatThrownBy(() -> Switchboard.builder().instance("a", brokerId(), brokerProperties())
                .route("orders", Route.single("b")).build())
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("'b'").hasMessageContaining("a");
    }

    @Test
    @DisplayName("split weights summing to zero are refused")
    void zeroWeights() {
        assertThatThrownBy(() -> Route.split(Map.of("a", 0, "b", 0)))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("sum to 0");
    }

    @Test
    @DisplayName("a mirror of an instance onto itself is refused")
    void mirrorOntoItself() {
        assertThatThrownBy(() -> Route.mirror("a", "a"))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("two different instances");
    }

    private Switchboard build(UnaryOperator<Switchboard.Builder> settings) {
        return settings.apply(Switchboard.builder().broker(brokerId()).properties(brokerProperties())).build();
    }

    /** Builds a Switchboard with the settings and creates a publisher; either step may refuse. */
    private AbstractThrowableAssert<?, ? extends Throwable> refusedOnFirstPublisher(UnaryOperator<Switchboard.Builder> settings) {
        String dest = destination();
        return assertThatThrownBy(() -> {
            try (Switchboard sb = build(settings)) {
                sb.publisher(dest, TEXT).delivery(Delivery.AT_LEAST_ONCE).build();
            }
        }).isInstanceOf(ConfigurationException.class);
    }
}
