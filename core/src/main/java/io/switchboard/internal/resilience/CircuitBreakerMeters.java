package io.switchboard.internal.resilience;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.Locale;

/**
 * The circuit breakers' Micrometer gauges under Resilience4j's own names and tags
 * ({@code resilience4j.circuitbreaker.state}, {@code .failure.rate}, {@code .slow.call.rate},
 * {@code .buffered.calls}), read from each breaker's state when the registry is scraped.
 *
 * <p>Resilience4j's {@code TaggedCircuitBreakerMetrics} also times every call through the
 * breaker's event publisher, and a breaker with any event consumer builds an event object (with a
 * {@code ZonedDateTime}) for every call: about 200 ns and 300 bytes per publish on the hot path. The
 * publish timer {@code switchboard.publish} (tag {@code outcome}) already times every call, so those
 * per-call timers are left out and no per-call event is made unless an application subscribes to
 * the breaker's events itself.
 */
final class CircuitBreakerMeters {

    private static final String PREFIX = "resilience4j.circuitbreaker.";

    private CircuitBreakerMeters() {}

    /** Gauges for every breaker in {@code breakers}, now and as they are added. */
    static void bind(CircuitBreakerRegistry breakers, MeterRegistry registry) {
        breakers.getAllCircuitBreakers().forEach(cb -> register(cb, registry));
        breakers.getEventPublisher().onEntryAdded(event -> register(event.getAddedEntry(), registry));
    }

    private static void register(CircuitBreaker cb, MeterRegistry registry) {
        Tags name = Tags.of("name", cb.getName());
        for (CircuitBreaker.State state : CircuitBreaker.State.values()) {
            Gauge.builder(PREFIX + "state", cb, b -> b.getState() == state ? 1 : 0)
                    .description("The states of the circuit breaker (1 for the current one)")
                    .tags(name.and("state", state.name().toLowerCase(Locale.ROOT)))
                    .register(registry);
        }
        Gauge.builder(PREFIX + "failure.rate", cb, b -> b.getMetrics().getFailureRate())
                .description("The failure rate of the circuit breaker").baseUnit("percent").tags(name).register(registry);
        Gauge.builder(PREFIX + "slow.call.rate", cb, b -> b.getMetrics().getSlowCallRate())
                .description("The slow call rate of the circuit breaker").baseUnit("percent").tags(name).register(registry);
        Gauge.builder(PREFIX + "buffered.calls", cb, b -> b.getMetrics().getNumberOfSuccessfulCalls())
                .description("The number of buffered successful calls").tags(name.and("kind", "successful")).register(registry);
        Gauge.builder(PREFIX + "buffered.calls", cb, b -> b.getMetrics().getNumberOfFailedCalls())
                .description("The number of buffered failed calls").tags(name.and("kind", "failed")).register(registry);
    }
}
