package io.switchboard.internal.resilience;

import io.github.resilience4j.bulkhead.Bulkhead;
import io.github.resilience4j.bulkhead.BulkheadConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.core.IntervalFunction;
import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import io.switchboard.BackPressureException;
import io.switchboard.CircuitOpenException;
import io.switchboard.PublishException;
import io.switchboard.spi.OutboundRecord;
import io.switchboard.spi.RawPublisher;
import io.switchboard.spi.SendResult;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;

/**
 * Resilience4j around a raw publisher, nested as Resilience4j documents:
 * Retry(CircuitBreaker(RateLimiter(TimeLimit(Bulkhead(send))))). Only the configured parts exist;
 * {@link #wrap} returns the raw publisher itself when nothing is configured.
 */
public final class ResilientPublisher implements RawPublisher {

    private final RawPublisher delegate;
    private final String instance;
    private final String destination;
    private final CircuitBreaker circuitBreaker;
    private final Retry retry;
    private final RateLimiter rateLimiter;
    private final Bulkhead bulkhead;
    private final Duration timeout;
    private final ResilienceRegistries registries;

    private ResilientPublisher(RawPublisher delegate, ResilienceSettings s, ResilienceRegistries registries, String instance,
            String destination) {
        this.delegate = delegate;
        this.instance = instance;
        this.destination = destination;
        this.registries = registries;
        this.circuitBreaker = s.circuitBreakerEnabled() ? circuitBreaker(s, registries, instance, destination) : null;
        this.retry = s.retryAttempts() > 1 ? registries.retries().retry(instance + "/" + destination, RetryConfig.custom()
                .maxAttempts(s.retryAttempts())
                .intervalFunction(IntervalFunction.ofExponentialRandomBackoff(
                        s.retryDuration("initial-backoff", Duration.ofMillis(100)), s.retryDouble("multiplier", 2.0, 1.0, 100.0),
                        s.retryDouble("jitter", 0.5, 0.0, 0.99), s.retryDuration("max-backoff", Duration.ofSeconds(5))))
                .retryOnException(Retriability::isRetriable)
                .build()) : null;
        this.rateLimiter = s.rateLimit() > 0 ? registries.rateLimiters().rateLimiter(instance + "/" + destination,
                RateLimiterConfig.custom().limitForPeriod(s.rateLimit()).limitRefreshPeriod(Duration.ofSeconds(1))
                        .timeoutDuration(s.rateLimitTimeout()).build()) : null;
        this.bulkhead = s.bulkhead() > 0 ? registries.bulkheads().bulkhead(instance + "/" + destination,
                BulkheadConfig.custom().maxConcurrentCalls(s.bulkhead()).maxWaitDuration(Duration.ZERO).build()) : null;
        this.timeout = s.timeout();
    }

    private static CircuitBreaker circuitBreaker(ResilienceSettings s, ResilienceRegistries registries, String instance,
            String destination) {
        String name = s.destinationSpecificBreaker() ? instance + "/" + destination : instance;
        return registries.circuitBreakers().circuitBreaker(name, () -> breakerConfig(s));
    }

    private static CircuitBreakerConfig breakerConfig(ResilienceSettings s) {
        return CircuitBreakerConfig.custom()
                .failureRateThreshold(s.cbInt("failure-rate-threshold", 50, 1, 100))
                .slowCallDurationThreshold(s.cbDuration("slow-call-duration-threshold", Duration.ofSeconds(5)))
                .slowCallRateThreshold(s.cbInt("slow-call-rate-threshold", 100, 1, 100))
                .slidingWindowSize(s.cbInt("sliding-window-size", 20, 1, 100_000))
                .minimumNumberOfCalls(s.cbInt("minimum-number-of-calls", 10, 1, 100_000))
                .waitDurationInOpenState(s.cbDuration("wait-duration-in-open-state", Duration.ofSeconds(10)))
                .permittedNumberOfCallsInHalfOpenState(s.cbInt("permitted-calls-in-half-open-state", 3, 1, 100_000))
                .build();
    }

    /** The publisher with the configured policies, or {@code raw} itself when none is configured. */
    public static RawPublisher wrap(RawPublisher raw, ResilienceSettings settings, ResilienceRegistries registries,
            String instance, String destination) {
        return settings.any() ? new ResilientPublisher(raw, settings, registries, instance, destination) : raw;
    }

    /** The circuit breaker this publisher records its calls in, or null when none is configured. */
    public CircuitBreaker circuitBreaker() {
        return circuitBreaker;
    }

    /** The circuit breaker {@code raw} records its calls in, when it is a resilient publisher with one; else null. */
    public static CircuitBreaker circuitBreakerOf(RawPublisher raw) {
        return raw instanceof ResilientPublisher r ? r.circuitBreaker : null;
    }

    /** A circuit breaker for {@code instance} configured from {@code settings} (defaults where unset). */
    public static CircuitBreaker circuitBreaker(String name, ResilienceSettings s, ResilienceRegistries registries) {
        return registries.circuitBreakers().circuitBreaker(name, () -> breakerConfig(s));
    }

    @Override
    public CompletableFuture<SendResult> send(OutboundRecord record) {
        CompletableFuture<SendResult> once = attemptOnce(record, retry != null);
        if (retry == null || acknowledged(once) || once instanceof Attempt) {
            return once; // an attempt made with retry hands its own failure to the retry
        }
        // refused before the send (open breaker, rate limit, bulkhead) or failed within it: the retry decides
        CompletableFuture<SendResult> result = new CompletableFuture<>();
        once.whenComplete((r, error) -> {
            if (error == null) {
                result.complete(r);
            } else {
                retryAfter(record, Retriability.unwrap(error), null, result);
            }
        });
        return result;
    }

    /**
     * Whether a future has already completed normally: the adapter acknowledged within its send, so
     * the bookkeeping happens at once, with no callback and no future of this layer's own.
     */
    private static boolean acknowledged(CompletableFuture<SendResult> f) {
        return f.isDone() && !f.isCompletedExceptionally();
    }

    private void retryAfter(OutboundRecord record, Throwable failure, Retry.AsyncContext<SendResult> context,
            CompletableFuture<SendResult> retryResult) {
        Retry.AsyncContext<SendResult> c = context != null ? context : retry.asyncContext();
        long delayMillis = c.onError(failure);
        if (delayMillis < 0) {
            retryResult.completeExceptionally(failure);
            return;
        }
        registries.events(instance).instant(io.switchboard.spi.EventKinds.PUBLISH_RETRY, destination,
                "retry in " + delayMillis + " ms after " + failure.getClass().getSimpleName());
        registries.scheduler().schedule(() -> attemptOnce(record, false).whenComplete((r, error) -> {
            if (error == null) {
                c.onComplete();
                retryResult.complete(r);
            } else {
                retryAfter(record, Retriability.unwrap(error), c, retryResult);
            }
        }), delayMillis, TimeUnit.MILLISECONDS);
    }

    /**
     * One try. The retry context is created only after a failure, so a publish that succeeds at once
     * pays nothing for retry.
     *
     * @param first the first try of a publish with retry configured: a failure that comes later goes
     *     from its callback to the retry, whose outcome completes the returned future
     */
    private CompletableFuture<SendResult> attemptOnce(OutboundRecord record, boolean first) {
        if (circuitBreaker != null && !circuitBreaker.tryAcquirePermission()) {
            return CompletableFuture.failedFuture(new CircuitOpenException("Circuit breaker '" + circuitBreaker.getName()
                    + "' of broker instance '" + instance + "' is " + circuitBreaker.getState() + " (failure rate "
                    + circuitBreaker.getMetrics().getFailureRate() + "%); publish to '" + destination
                    + "' refused without calling the broker. It retries after the configured wait in open state"));
        }
        if (rateLimiter != null && !rateLimiter.acquirePermission()) {
            return refuse(new BackPressureException("Rate limit of broker instance '" + instance + "' for '" + destination
                    + "' reached: no permit within the rate-limit timeout; publish more slowly or raise rate-limit"));
        }
        if (bulkhead != null && !bulkhead.tryAcquirePermission()) {
            return refuse(new BackPressureException("Bulkhead of broker instance '" + instance + "' for '" + destination
                    + "' is full (" + bulkhead.getBulkheadConfig().getMaxConcurrentCalls()
                    + " publishes awaiting acknowledgement); wait for acknowledgements or raise bulkhead.max-concurrent"));
        }
        long start = System.nanoTime();
        CompletableFuture<SendResult> sent;
        try {
            sent = delegate.send(record);
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        if (acknowledged(sent)) {
            succeeded(start);
            return sent;
        }
        if (timeout != null) {
            sent = sent.orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        Attempt attempt = new Attempt(start, first ? record : null);
        sent.whenComplete(attempt);
        return attempt;
    }

    private void succeeded(long start) {
        if (bulkhead != null) {
            bulkhead.onComplete();
        }
        if (circuitBreaker != null) {
            circuitBreaker.onSuccess(System.nanoTime() - start, TimeUnit.NANOSECONDS);
        }
    }

    /**
     * One try whose outcome comes later: the callback on the adapter's future and the future it
     * completes, with the outcome of the retries too when it holds the record to retry.
     */
    private final class Attempt extends CompletableFuture<SendResult> implements BiConsumer<SendResult, Throwable> {
        private final long start;
        /** The record when a failure goes to the retry, else null. */
        private final OutboundRecord retried;

        Attempt(long start, OutboundRecord retried) {
            this.start = start;
            this.retried = retried;
        }

        @Override
        public void accept(SendResult r, Throwable error) {
            if (error == null) {
                succeeded(start);
                complete(r);
                return;
            }
            if (bulkhead != null) {
                bulkhead.onComplete();
            }
            Throwable cause = Retriability.unwrap(error);
            if (cause instanceof TimeoutException) {
                cause = new PublishException("Broker instance '" + instance + "' did not acknowledge a message to '"
                        + destination + "' within " + timeout + "; the message may or may not have been stored", cause);
            }
            if (circuitBreaker != null) {
                circuitBreaker.onError(System.nanoTime() - start, TimeUnit.NANOSECONDS, cause);
            }
            if (retried != null) {
                retryAfter(retried, Retriability.unwrap(cause), null, this);
            } else {
                completeExceptionally(cause);
            }
        }
    }

    private CompletableFuture<SendResult> refuse(Throwable error) {
        if (circuitBreaker != null) {
            circuitBreaker.releasePermission();
        }
        return CompletableFuture.failedFuture(error);
    }

    @Override
    public void close() {
        delegate.close();
    }
}
