package io.switchboard.internal.resilience;

import io.github.resilience4j.bulkhead.BulkheadRegistry;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.micrometer.tagged.TaggedBulkheadMetrics;
import io.github.resilience4j.micrometer.tagged.TaggedRateLimiterMetrics;
import io.github.resilience4j.micrometer.tagged.TaggedRetryMetrics;
import io.github.resilience4j.ratelimiter.RateLimiterRegistry;
import io.github.resilience4j.retry.RetryRegistry;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The Resilience4j registries of one Switchboard. Their event publishers are the typed listener
 * callbacks ({@code circuitBreakers().circuitBreaker(name).getEventPublisher().onStateTransition(..)});
 * with a meter registry they are exported as {@code resilience4j.*} meters (circuit breakers as
 * gauges of their state, see {@link CircuitBreakerMeters}).
 */
public final class ResilienceRegistries implements AutoCloseable {

    private final CircuitBreakerRegistry circuitBreakers = CircuitBreakerRegistry.ofDefaults();
    private final RetryRegistry retries = RetryRegistry.ofDefaults();
    private final RateLimiterRegistry rateLimiters = RateLimiterRegistry.ofDefaults();
    private final BulkheadRegistry bulkheads = BulkheadRegistry.ofDefaults();
    private volatile ScheduledExecutorService scheduler;
    private volatile io.switchboard.internal.comparison.Timeline events;
    /** Each circuit breaker's state when {@link #checkBreakers()} last looked. */
    private final java.util.Map<String, io.github.resilience4j.circuitbreaker.CircuitBreaker.State> breakerStates =
            new java.util.concurrent.ConcurrentHashMap<>();

    /** Sets the timeline that retries, back-pressure and circuit breaker transitions are put on. */
    public void events(io.switchboard.internal.comparison.Timeline timeline) {
        this.events = timeline;
    }

    /** {@return the event sink of {@code instance}} */
    public io.switchboard.spi.ClientEvents events(String instance) {
        io.switchboard.internal.comparison.Timeline t = events;
        return t == null ? io.switchboard.spi.ClientEvents.NONE : t.of(instance);
    }

    /**
     * Puts the circuit breakers' state changes since the last call on the timeline (instance: the breaker's name up to
     * its first '/'). Read once a second by the routing ticker rather than through the breakers' event publishers: a
     * breaker with any event consumer builds an event object for every call.
     */
    public void checkBreakers() {
        for (io.github.resilience4j.circuitbreaker.CircuitBreaker cb : circuitBreakers.getAllCircuitBreakers()) {
            io.github.resilience4j.circuitbreaker.CircuitBreaker.State now = cb.getState();
            io.github.resilience4j.circuitbreaker.CircuitBreaker.State before = breakerStates.put(cb.getName(), now);
            if (before == null) {
                before = io.github.resilience4j.circuitbreaker.CircuitBreaker.State.CLOSED; // every breaker starts closed
            }
            if (before != now) {
                String name = cb.getName();
                int slash = name.indexOf('/');
                events(slash < 0 ? name : name.substring(0, slash)).instant(io.switchboard.spi.EventKinds.CIRCUIT_BREAKER, name,
                        before + " -> " + now + String.format(java.util.Locale.ROOT, " (failure rate %.1f%%)",
                                cb.getMetrics().getFailureRate()));
            }
        }
    }

    /** Exports the registries' events as meters in {@code meterRegistry}. */
    public void bindTo(MeterRegistry meterRegistry) {
        {
            CircuitBreakerMeters.bind(circuitBreakers, meterRegistry); // gauges only: no event per call
            TaggedRetryMetrics.ofRetryRegistry(retries).bindTo(meterRegistry);
            TaggedRateLimiterMetrics.ofRateLimiterRegistry(rateLimiters).bindTo(meterRegistry);
            TaggedBulkheadMetrics.ofBulkheadRegistry(bulkheads).bindTo(meterRegistry);
        }
    }

    /** Circuit breakers, one per broker instance (or per destination when a destination configures its own). */
    public CircuitBreakerRegistry circuitBreakers() {
        return circuitBreakers;
    }

    /** Publish retries, one per destination. */
    public RetryRegistry retries() {
        return retries;
    }

    /** Rate limiters, one per destination. */
    public RateLimiterRegistry rateLimiters() {
        return rateLimiters;
    }

    /** Bulkheads, one per destination. */
    public BulkheadRegistry bulkheads() {
        return bulkheads;
    }

    /** The scheduler for retry back-offs and time limits; one daemon thread, made on first use. */
    ScheduledExecutorService scheduler() {
        ScheduledExecutorService s = scheduler;
        if (s == null) {
            synchronized (this) {
                s = scheduler;
                if (s == null) {
                    s = Executors.newSingleThreadScheduledExecutor(r -> {
                        Thread t = new Thread(r, "switchboard-resilience");
                        t.setDaemon(true);
                        return t;
                    });
                    scheduler = s;
                }
            }
        }
        return s;
    }

    @Override
    public void close() {
        ScheduledExecutorService s = scheduler;
        if (s != null) {
            s.shutdownNow();
        }
    }
}
